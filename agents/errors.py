"""The LLM layer's exceptions, in a module of their own so that every part of the layer (the
client, the embedded server, the stages) can raise and catch them without importing each
other."""


class LLMError(RuntimeError):
    """The LLM could not answer: unreachable, timed out, refused, or answered garbage."""


class LLMUnavailable(LLMError):
    """No LLM is configured or the embedded one cannot start."""
