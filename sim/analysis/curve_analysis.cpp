// Végh's analysis of one scaling curve (placeholder while it is written).
