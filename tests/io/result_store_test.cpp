// Tests of the HDF5 result store (placeholder while they are written).
