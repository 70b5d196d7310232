// The HDF5 result store (placeholder while it is written).
