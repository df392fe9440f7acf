"""nn kernels (nn_act_loss) declared in the op table."""
