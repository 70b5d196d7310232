// Tests of the curve analysis (placeholder while they are written).
