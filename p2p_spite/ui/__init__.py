"""What a person sees and types: the move notation and the terminal interface."""
