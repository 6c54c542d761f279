// Placeholder: the GeometryOps module's sources are being written.
