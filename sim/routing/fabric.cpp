// Fabric links and paths of dragonflies and fat-trees, by arithmetic on router and slot indices.
#include "routing/fabric.hpp"

#include "platform/topology.hpp"

#include <algorithm>
#include <stdexcept>

namespace ceiling::routing {

std::uint64_t mix(std::uint64_t seed, std::initializer_list<long long> values) {
  std::uint64_t x = seed;
  for (long long v : values) {
    x ^= static_cast<std::uint64_t>(v) + 0x9e3779b97f4a7c15ULL + (x << 6) + (x >> 2);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
  }
  return x;
}

namespace {

/// A fat-tree's link from level k's `element` to its parent `u` on `cable`: level by level, the
/// up links element by element, parent by parent, cable by cable, then the down links alike.
std::uint32_t tree_link(const detail::FatTreeShape& s, std::size_t k, long long element, long long u, long long cable,
                        bool down) {
  const long long from = element + (down ? s.elements[k] : 0);
  return static_cast<std::uint32_t>(s.up_base[k] + (from * s.f.up[k] + u) * s.f.links[k] + cable);
}

std::uint32_t checked_id(long long id) {
  if (id < 0 || id > static_cast<long long>(UINT32_MAX))
    throw std::length_error("the fabric would have " + std::to_string(id) +
                            " or more links, more than 32-bit ids can number (4,294,967,295): a smaller topology");
  return static_cast<std::uint32_t>(id);
}

} // namespace

std::optional<Fabric> Fabric::of(const platform::InterconnectSpec& net) {
  Fabric fabric;
  fabric.bandwidth_ = net.link_bandwidth.bytes_per_second();
  fabric.latency_s_ = net.link_latency.seconds();
  fabric.slots_ = platform::slot_count(net.topology);
  if (const auto* d = std::get_if<platform::Dragonfly>(&net.topology)) {
    DragonflyShape s{.d = *d};
    s.routers = 1LL * d->groups * d->chassis_per_group * d->routers_per_chassis;
    s.green = checked_id(2 * fabric.slots_);
    s.black = checked_id(s.green + s.routers * d->routers_per_chassis);
    s.global = checked_id(s.black + s.routers * d->chassis_per_group);
    fabric.link_count_ = checked_id(s.global + 1LL * d->groups * d->groups * d->global_links);
    s.places.reserve(static_cast<std::size_t>(s.routers));
    for (long long g = 0; g < d->groups; ++g)
      for (long long c = 0; c < d->chassis_per_group; ++c)
        for (long long p = 0; p < d->routers_per_chassis; ++p)
          s.places.push_back(
              {static_cast<std::uint32_t>(g), static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(p)});
    fabric.shape_ = s;
    return fabric;
  }
  if (const auto* f = std::get_if<platform::FatTree>(&net.topology)) {
    FatTreeShape s{.f = *f};
    const std::size_t levels = f->down.size();
    s.below.push_back(1);
    s.choices.push_back(1);
    for (std::size_t k = 0; k < levels; ++k) {
      s.below.push_back(s.below.back() * f->down[k]);
      s.choices.push_back(s.choices.back() * f->up[k]);
    }
    long long next = 0;
    s.cables.push_back(1);
    for (std::size_t k = 0; k <= levels; ++k) {
      s.elements.push_back(fabric.slots_ / s.below[k] * s.choices[k]);
      if (k < levels) {
        s.up_base.push_back(checked_id(next));
        next += 2 * s.elements[k] * f->up[k] * f->links[k];
        s.cables.push_back(s.cables.back() * f->links[k]);
      }
    }
    fabric.link_count_ = checked_id(next);
    fabric.shape_ = s;
    return fabric;
  }
  return std::nullopt;
}

double Fabric::link_bandwidth_bytes_per_s(std::uint32_t id) const {
  if (const auto* s = std::get_if<DragonflyShape>(&shape_)) {
    if (id < s->green || id >= s->global)
      return bandwidth_; // a node's port, or one global cable
    return bandwidth_ * (id < s->black ? s->d.router_links : s->d.chassis_links);
  }
  return bandwidth_; // one fat-tree cable
}

platform::FabricLinkKind Fabric::link_kind(std::uint32_t id) const {
  if (const auto* s = std::get_if<DragonflyShape>(&shape_))
    return id < s->green ? platform::FabricLinkKind::NodePort
           : id >= s->global ? platform::FabricLinkKind::Global
                             : platform::FabricLinkKind::Inside;
  const auto& s = std::get<FatTreeShape>(shape_);
  const bool from_or_to_a_node = s.up_base.size() == 1 || id < s.up_base[1]; // level 0's links
  return from_or_to_a_node ? platform::FabricLinkKind::NodePort : platform::FabricLinkKind::Inside;
}

std::string Fabric::link_name(std::uint32_t id) const {
  if (const auto* s = std::get_if<DragonflyShape>(&shape_)) {
    const auto& d = s->d;
    if (id < s->green)
      return std::string(id % 2 == 0 ? "node " : "router->node ") + std::to_string(id / 2) +
             (id % 2 == 0 ? "->router" : "");
    if (id < s->black)
      return "green router " + std::to_string((id - s->green) / d.routers_per_chassis) + "->position " +
             std::to_string((id - s->green) % d.routers_per_chassis);
    if (id < s->global)
      return "black router " + std::to_string((id - s->black) / d.chassis_per_group) + "->chassis " +
             std::to_string((id - s->black) % d.chassis_per_group);
    const long long k = id - s->global;
    const long long pair = k / d.global_links;
    return "global group " + std::to_string(pair / d.groups) + "->" + std::to_string(pair % d.groups) +
           " #" + std::to_string(k % d.global_links);
  }
  const auto& s = std::get<FatTreeShape>(shape_);
  std::size_t k = s.up_base.size() - 1;
  while (id < s.up_base[k])
    --k;
  const long long ports = s.f.up[k] * s.f.links[k]; // of an element of level k
  const long long within = id - s.up_base[k];
  const bool up = within < s.elements[k] * ports;
  const long long port = up ? within : within - s.elements[k] * ports;
  return std::string(up ? "up" : "down") + " level " + std::to_string(k) + " element " + std::to_string(port / ports) +
         " parent " + std::to_string(port / s.f.links[k] % s.f.up[k]) +
         (s.f.links[k] > 1 ? " cable " + std::to_string(port % s.f.links[k]) : "");
}

std::span<const Path> Fabric::paths(long long a, long long b, std::uint64_t salt, std::vector<Path>& scratch,
                                    Kinds kinds, std::size_t at_most) const {
  if (a == b || a < 0 || b < 0 || a >= slots_ || b >= slots_)
    throw std::invalid_argument("Fabric::paths: slots " + std::to_string(a) + " and " + std::to_string(b) +
                                " are not two distinct slots below " + std::to_string(slots_));
  if (at_most == 0)
    throw std::invalid_argument("Fabric::paths: at least one path must be asked for");
  Paths out{scratch, std::min(at_most, max_paths), kinds != Kinds::NonMinimal, kinds != Kinds::Minimal};
  if (const auto* s = std::get_if<DragonflyShape>(&shape_))
    dragonfly_paths(*s, a, b, salt, out);
  else
    fat_tree_paths(std::get<FatTreeShape>(shape_), a, b, salt, out);
  return {scratch.data(), out.written};
}

Path& Fabric::Paths::next(bool is_minimal) {
  if (written == scratch.size())
    scratch.emplace_back();
  Path& p = scratch[written++];
  ++count;
  p.links.clear(); // (its memory kept for the next pair)
  p.router_hops = 0;
  p.minimal = is_minimal;
  return p;
}

void Fabric::dragonfly_paths(const DragonflyShape& s, long long a, long long b, std::uint64_t salt,
                             Paths& out) const {
  // Router indices fit in 32 bits (the links' ids do); a router's place is looked up (this
  // arithmetic is most of building a large adaptively routed machine).
  using Id = std::uint32_t;
  const auto& d = s.d;
  const Id per_chassis = static_cast<Id>(d.routers_per_chassis);
  const Id chassis_per_group = static_cast<Id>(d.chassis_per_group);
  const Id per_group = per_chassis * chassis_per_group;
  const Id groups = static_cast<Id>(d.groups);
  const Id global_links = static_cast<Id>(d.global_links);
  const auto group = [&](Id r) { return s.places[r].group; };
  const auto chassis = [&](Id r) { return s.places[r].chassis; };
  const auto position = [&](Id r) { return s.places[r].position; };
  const auto router_at = [&](Id g, Id c, Id p) { return (g * chassis_per_group + c) * per_chassis + p; };
  const auto green = [&](Id r, Id p) { return s.green + r * per_chassis + p; };
  const auto black = [&](Id r, Id c) { return s.black + r * chassis_per_group + c; };
  const auto global = [&](Id from, Id to, Id j) { return s.global + (from * groups + to) * global_links + j; };
  // The router of group `from` holding its cable j towards group `to`: the group's cables, peer
  // by peer, dealt round-robin over its routers.
  const auto gateway = [&](Id from, Id to, Id j) {
    const Id peer = to < from ? to : to - 1;
    return from * per_group + (peer * global_links + j) % per_group;
  };
  // Minimal inside a group, green then black or black then green.
  const auto inside = [&](Id from, Id to, bool green_first, Path& p) {
    if (from == to)
      return;
    const Id pf = position(from), pt = position(to), cf = chassis(from), ct = chassis(to);
    if (cf == ct) {
      p.links.push_back(green(from, pt));
      ++p.router_hops;
    } else if (pf == pt) {
      p.links.push_back(black(from, ct));
      ++p.router_hops;
    } else if (green_first) {
      p.links.push_back(green(from, pt));
      p.links.push_back(black(router_at(group(from), cf, pt), ct));
      p.router_hops += 2;
    } else {
      p.links.push_back(black(from, ct));
      p.links.push_back(green(router_at(group(from), ct, pf), pt));
      p.router_hops += 2;
    }
  };
  const Id ra = static_cast<Id>(a / d.nodes_per_router), rb = static_cast<Id>(b / d.nodes_per_router);
  const Id ga = group(ra), gb = group(rb);
  const auto start = [&](bool minimal) -> Path& {
    Path& p = out.next(minimal);
    p.links.push_back(static_cast<Id>(2 * a)); // node a -> its router
    return p;
  };
  const auto finish = [&](Path& p) { p.links.push_back(static_cast<Id>(2 * b + 1)); };

  if (ga == gb) {
    if (out.wants(true)) {
      Path& p = start(true);
      inside(ra, rb, true, p);
      finish(p);
    }
    if (chassis(ra) != chassis(rb) && position(ra) != position(rb) && !out.full() && out.wants(true)) {
      Path& q = start(true);
      inside(ra, rb, false, q);
      finish(q);
    }
    if (ra == rb || !out.others)
      return;
    // Valiant inside the group: through each other router q of the source's chassis, then
    // black first (to q's position in the destination's chassis), so that each q crosses a
    // black link of its own; the q at the destination's position is the minimal path itself.
    // Where the routers outnumber the room max_paths leaves, from a position hashed from the pair,
    // so that the pairs together pass through every router.
    const bool other_chassis = chassis(ra) != chassis(rb);
    const bool sampled = per_chassis > max_paths - out.count + 1;
    const Id offset = sampled ? static_cast<Id>(mix(salt, {a, b}) % per_chassis) : 0;
    for (Id j = 0; j < per_chassis && !out.full(); ++j) {
      const Id q = (offset + j) % per_chassis;
      const Id via = router_at(ga, chassis(ra), q);
      if (via == ra || via == rb || (other_chassis && q == position(rb)))
        continue;
      Path& p = start(false);
      inside(ra, via, true, p);
      inside(via, rb, false, p);
      finish(p);
    }
    return;
  }
  // Between groups: one minimal path per global cable joining them, then a Valiant path through
  // each third group. Where they number more than max_paths, the minimal ones keep the room the
  // third groups leave, or half of it if that is more, and each kind is a sample spread evenly
  // over its cables or groups from a hashed start, so that every cable and group carries some
  // pair's paths. (Decided on max_paths and every third group, whatever is asked for: the first
  // k paths, and the minimal ones alone, are those of the whole list.)
  const long long thirds = groups - 2;
  const auto most = static_cast<long long>(max_paths);
  const long long minimal = global_links + thirds <= most ? global_links
                                                          : std::min<long long>(global_links, std::max(most - thirds, most / 2));
  const long long room = most - minimal; // for Valiant paths
  const std::uint64_t spread = mix(salt, {a, b});
  for (long long i = 0; i < minimal && !out.full(); ++i) {
    if (!out.wants(true))
      continue;
    const Id j = minimal == global_links ? static_cast<Id>(i)
                                         : static_cast<Id>((spread + static_cast<std::uint64_t>(i * global_links / minimal)) % global_links);
    Path& p = start(true);
    inside(ra, gateway(ga, gb, j), true, p);
    p.links.push_back(global(ga, gb, j));
    ++p.router_hops;
    inside(gateway(gb, ga, j), rb, true, p);
    finish(p);
  }
  // Valiant: through third groups, on hashed cables.
  for (long long i = 0; i < std::min(thirds, room) && !out.full() && out.others; ++i) {
    // The i-th third group, or the i-th of an even sample of them where they outnumber the room.
    const Id k = thirds <= room ? static_cast<Id>(i)
                                : static_cast<Id>(((spread >> 32) + static_cast<std::uint64_t>(i * thirds / room)) % thirds);
    Id gi = k;
    for (Id skipped : {std::min(ga, gb), std::max(ga, gb)}) // the k-th group that is neither end
      gi += gi >= skipped ? 1 : 0;
    const std::uint64_t h = mix(salt, {a, b, static_cast<long long>(gi)});
    const Id j1 = static_cast<Id>(h % global_links);
    const Id j2 = static_cast<Id>((h >> 32) % global_links);
    Path& p = start(false);
    inside(ra, gateway(ga, gi, j1), true, p);
    p.links.push_back(global(ga, gi, j1));
    inside(gateway(gi, ga, j1), gateway(gi, gb, j2), true, p);
    p.links.push_back(global(gi, gb, j2));
    p.router_hops += 2;
    inside(gateway(gb, gi, j2), rb, true, p);
    finish(p);
  }
}

void Fabric::fat_tree_paths(const FatTreeShape& s, long long a, long long b, std::uint64_t salt, Paths& out) const {
  if (!out.minimal) // (every path of a fat-tree is minimal)
    return;
  const auto& f = s.f;
  std::size_t h = 1; // the lowest level whose pod holds both
  while (a / s.below[h] != b / s.below[h])
    ++h;
  // A path: its top switch (`top`, the up choices on the way) and, at each level, which of the
  // parallel cables it takes, the same one up on a's side and down on b's. All of them in order,
  // the first up choice varying fastest, where they are at most max_paths; else max_paths of
  // them in a row, from a start hashed from the pair, in an order where the highest level's up
  // choice varies fastest, then the levels below, then the cables from the highest level down:
  // each pair's sample reaches as many top switches as it can, and the pairs together every
  // switch and cable.
  const long long count = s.choices[h] * s.cables[h];
  const long long taken = std::min<long long>(count, static_cast<long long>(max_paths));
  const long long start = count > taken ? static_cast<long long>(mix(salt, {a, b}) % static_cast<std::uint64_t>(count)) : 0;
  for (long long i = 0; i < taken && !out.full(); ++i) {
    long long top = i % s.choices[h];
    long long cables = i / s.choices[h];
    if (count > taken) {
      long long rest = (start + i) % count;
      top = 0;
      for (std::size_t k = h; k-- > 0;) { // up choices, highest level first
        top += rest % f.up[k] * s.choices[k];
        rest /= f.up[k];
      }
      cables = 0;
      for (std::size_t k = h; k-- > 0;) { // then cables, highest level first
        cables += rest % f.links[k] * s.cables[k];
        rest /= f.links[k];
      }
    }
    Path& p = out.next(true);
    p.router_hops = 2 * static_cast<int>(h) - 2;
    const auto link = [&](std::size_t k, long long slot, bool down) {
      const long long element = slot / s.below[k] * s.choices[k] + top % s.choices[k];
      return tree_link(s, k, element, top / s.choices[k] % f.up[k], cables / s.cables[k] % f.links[k], down);
    };
    for (std::size_t k = 0; k < h; ++k) // up from a's side
      p.links.push_back(link(k, a, false));
    for (std::size_t k = h; k-- > 0;) // down to b's side
      p.links.push_back(link(k, b, true));
  }
}

bool Fabric::simgrid_static_path(long long a, long long b, std::vector<std::uint32_t>& out) const {
  out.clear();
  const auto* s = std::get_if<FatTreeShape>(&shape_);
  if (s == nullptr)
    return false;
  if (a < 0 || b < 0 || a >= slots_ || b >= slots_)
    throw std::invalid_argument("Fabric::simgrid_static_path: slots " + std::to_string(a) + " and " +
                                std::to_string(b) + " are not both below " + std::to_string(slots_));
  const auto& f = s->f;
  std::size_t h = 1; // the lowest level whose pod holds both
  while (a / s->below[h] != b / s->below[h])
    ++h;
  // The link of level k's element (pod, choice) to its parent `u` on `cable`, up or down.
  const auto link = [&](std::size_t k, long long pod, long long choice, long long u, long long cable, bool down) {
    return tree_link(*s, k, pod * s->choices[k] + choice, u, cable, down);
  };
  // Up: the parent port d-mod-k picks, level by level; `choice` gathers the parents taken (the
  // switch's label below its level), as the fabric numbers its elements.
  const auto parent_port = [&](std::size_t l) { return b / s->choices[l] % (f.up[l] * f.links[l]); };
  long long choice = 0;
  for (std::size_t l = 0; l < h; ++l) {
    const long long port = parent_port(l);
    out.push_back(link(l, a / s->below[l], choice, port % f.up[l], port / f.up[l], false));
    choice += port % f.up[l] * s->choices[l];
  }
  // Down: the loop over the switch's child ports, port i being child i mod down[k] on cable
  // i / down[k], carried on from switch to switch as get_local_route carries it: from port i, the
  // next port to b's child is the first at or after it that is b's digit modulo down[k].
  std::size_t level = h;
  long long i = a % f.links[h - 1] * f.down[h - 1]; // where the loop starts at a switch
  while (level > 0) {
    const std::size_t k = level - 1;
    const long long digit = b / s->below[k] % f.down[k];
    i += (digit - i % f.down[k] + f.down[k]) % f.down[k];
    if (i >= f.down[k] * f.links[k]) { // past the switch's last port: the loop starts again below
      i = a % f.links[k] * f.down[k];
      continue;
    }
    const long long parent = parent_port(k) % f.up[k];
    choice -= parent * s->choices[k]; // the child's label keeps the parents below level k
    out.push_back(link(k, b / s->below[k], choice, parent, i / f.down[k], true));
    level = k;
    ++i; // (the loop's next port, at the switch below)
  }
  return true;
}

long long Fabric::fat_tree_elements(std::size_t k) const {
  const auto* s = std::get_if<FatTreeShape>(&shape_);
  return s != nullptr && k < s->elements.size() ? s->elements[k] : 0;
}

long long Fabric::fat_tree_parent(std::size_t k, long long element, long long u) const {
  const auto& s = std::get<FatTreeShape>(shape_);
  // The parent keeps the element's label but for digit k, which becomes `u`: the parents taken
  // below gain `u` at level k, and the pod loses its lowest digit.
  const long long pod = element / s.choices[k];
  const long long choice = element % s.choices[k];
  return pod / s.f.down[k] * s.choices[k + 1] + u * s.choices[k] + choice;
}

std::uint32_t Fabric::fat_tree_link(std::size_t k, long long element, long long u, long long cable, bool down) const {
  return tree_link(std::get<FatTreeShape>(shape_), k, element, u, cable, down);
}

} // namespace ceiling::routing
