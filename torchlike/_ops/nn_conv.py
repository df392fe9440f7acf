"""nn kernels (nn_conv) declared in the op table."""
