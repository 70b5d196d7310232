// SimGrid XML export: written next.
