"""A real Slurm in the loop (docs/slurm.md)."""
