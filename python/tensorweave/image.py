"""tf.image: only the names that have an op behind them so far (the patch extraction)."""
from tensorweave.array_reorder_ops import extract_image_patches  # noqa: F401


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """tf.image.extract_patches: extract_image_patches with `sizes` for the window."""
    return extract_image_patches(images, sizes=sizes, strides=strides, rates=rates, padding=padding, name=name)
