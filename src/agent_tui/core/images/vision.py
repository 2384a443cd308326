"""Which models take images, and what to tell the user when one refuses them.

``accepts_images`` answers from, in order: the settings (``"model": {"vision": false}``), the
models that refused an image this session (``ImageStore.refused``), then a short list of
families known to take text only (DeepSeek's chat and reasoner, GPT-3.5, o1-mini, o3-mini,
Qwen's and Mistral's coder models, Llama 3 without ``vision``…). Anything else is assumed to
take images: the server says otherwise, and ``is_image_refusal`` recognises that answer
(HTTP 400 whose message names images or vision) so the error explains it.
"""

from __future__ import annotations

import re

from agent_tui.core.attachments import ImageRef

_TEXT_ONLY = re.compile(
    r"(^|[/:])("
    r"deepseek-(chat|reasoner|coder|r1|v[23])|gpt-3\.5|o1-mini|o3-mini|"
    r"qwen[0-9.]*-coder|qwen[0-9.]*(?!.*vl)|codestral|devstral|mistral-(small|large|nemo|7b)|"
    r"llama-?3(?!.*vision)|codellama|phi-?[34](?!.*vision)|starcoder|kimi-k2|glm-4\.5(?!v)"
    r")",
    re.IGNORECASE,
)
_REFUSAL = re.compile(
    r"image|vision|multimodal|multi-modal|image_url|content type|does not support (this )?content",
    re.IGNORECASE,
)


def accepts_images(
    model: str, *, setting: bool | None = None, refused: set[str] | None = None
) -> bool:
    """Whether to send images to ``model`` (a provider spec, ``openai:gpt-4o``)."""
    if setting is not None:
        return setting
    if refused and model in refused:
        return False
    name = model.partition(":")[2] if ":" in model else model
    return _TEXT_ONLY.search(name) is None


def is_image_refusal(message: str, status: int | None) -> bool:
    """A failed request's error reads as the model refusing images."""
    return status in (400, 415, 422) and _REFUSAL.search(message) is not None


def refusal_note(model: str) -> str:
    """What follows the server's error when a model refused an image."""
    return (
        f" — {model} does not accept images. Your message and its image are kept: switch "
        "to a model that reads images (/model) and send again, or go on here — this "
        "session now sends a text note in place of each image to this model."
    )


def text_only_note(model: str, images: list[ImageRef]) -> str:
    """What the user is told when they attach images for a model not sent images."""
    names = ", ".join(ref.name for ref in images)
    one = len(images) == 1
    return (
        f"{model} does not take images (known as text-only, set so, or it refused one "
        f"earlier): {names} {'stays' if one else 'stay'} in the conversation, and this model "
        f"gets a text note in {'its' if one else 'their'} place. Switch to a model that reads "
        f"images (/model) and {'it is' if one else 'they are'} sent with your next message; "
        'if this model does read images, set "model": {"vision": true}.'
    )


__all__ = ["accepts_images", "is_image_refusal", "refusal_note", "text_only_note"]
