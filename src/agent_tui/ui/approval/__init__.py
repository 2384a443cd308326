"""The permission prompt: the desk that queues asks (``desk``) and the modal (``screen``)."""
