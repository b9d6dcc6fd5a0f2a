"""kornia functions and modules for the corpus: images 2 x 3 x 32 x 32 (seeded)."""

from __future__ import annotations

from bench.corpus import Case, function_case


def _img(device, *extra, channels=3):
    import torch

    return (torch.rand(2, channels, 32, 32, device=device), *extra), {}


def _with(*values):
    """Inputs: the image, then ``values`` (built on the device when a value is a callable of it)."""

    def inputs(device):
        return _img(device, *(v(device) if callable(v) else v for v in values))

    return inputs


def _angle(device):
    import torch

    return torch.tensor([30.0, 45.0], device=device)


def _homography(device):
    import torch

    return torch.eye(3, device=device).repeat(2, 1, 1) + 0.01 * torch.randn(2, 3, 3, device=device)


def _affine(device):
    import torch

    return torch.eye(2, 3, device=device).repeat(2, 1, 1)


def _two_images(device):
    import torch

    return (torch.rand(2, 3, 32, 32, device=device), torch.rand(2, 3, 32, 32, device=device), 5), {}


def _image_pair(device):
    import torch

    return (torch.rand(2, 3, 32, 32, device=device), torch.rand(2, 3, 32, 32, device=device)), {}


def _labels(device):
    import torch

    return (torch.randn(2, 4, 8, 8, device=device), torch.randint(0, 4, (2, 8, 8), device=device)), {
        "alpha": 0.5, "reduction": "mean"}


def _module(path: str, inputs=_img, **kwargs):
    def factory(device):
        import importlib

        module, _, cls = path.rpartition(".")
        return getattr(importlib.import_module(module), cls)(**kwargs), *inputs(device)

    return factory


def _patches(device):
    import torch

    return (torch.rand(4, 1, 32, 32, device=device),), {}


def _aug_sequential(device):
    import torch
    from kornia import augmentation as K

    model = K.AugmentationSequential(K.RandomHorizontalFlip(p=0.5), K.ColorJitter(0.1, 0.1, 0.1, 0.1, p=0.5),
                                     K.RandomAffine(degrees=10.0, p=0.5))
    return model, (torch.rand(2, 3, 32, 32, device=device),), {}


def _f(target, inputs=_img):
    return function_case("kornia", target, inputs)


def _m(name, path, inputs=_img, **kwargs):
    return Case("kornia", name, _module(path, inputs, **kwargs))


CASES: list[Case] = [
    _f("kornia.filters.gaussian_blur2d", _with((3, 3), (1.5, 1.5))),
    _f("kornia.filters.sobel"),
    _f("kornia.filters.canny"),
    _f("kornia.filters.median_blur", _with((3, 3))),
    _f("kornia.filters.laplacian", _with(3)),
    _f("kornia.color.rgb_to_grayscale"),
    _f("kornia.color.rgb_to_hsv"),
    _f("kornia.color.rgb_to_lab"),
    _f("kornia.geometry.transform.rotate", _with(_angle)),
    _f("kornia.geometry.transform.warp_perspective", _with(_homography, (32, 32))),
    _f("kornia.geometry.transform.warp_affine", _with(_affine, (32, 32))),
    _f("kornia.geometry.transform.resize", _with((16, 16))),
    _f("kornia.enhance.adjust_brightness", _with(0.2)),
    _f("kornia.enhance.equalize"),
    _f("kornia.enhance.normalize_min_max"),
    _f("kornia.losses.ssim_loss", _two_images),
    _f("kornia.losses.focal_loss", _labels),
    _f("kornia.morphology.dilation", _with(lambda d: __import__("torch").ones(3, 3, device=d))),
    _f("kornia.contrib.extract_tensor_patches", _with(8)),
    _m("augmentation.RandomHorizontalFlip", "kornia.augmentation.RandomHorizontalFlip", p=0.5),
    _m("augmentation.ColorJitter", "kornia.augmentation.ColorJitter", brightness=0.1, contrast=0.1,
       saturation=0.1, hue=0.1, p=1.0),
    _m("augmentation.RandomAffine", "kornia.augmentation.RandomAffine", degrees=10.0, p=1.0),
    _m("augmentation.RandomResizedCrop", "kornia.augmentation.RandomResizedCrop", size=(16, 16)),
    Case("kornia", "augmentation.AugmentationSequential", _aug_sequential),
    _m("filters.GaussianBlur2d", "kornia.filters.GaussianBlur2d", kernel_size=(3, 3), sigma=(1.5, 1.5)),
    _m("feature.SIFTDescriptor", "kornia.feature.SIFTDescriptor", _patches, patch_size=32),
    _m("feature.HardNet", "kornia.feature.HardNet", _patches, pretrained=False),
    _m("losses.SSIMLoss", "kornia.losses.SSIMLoss", _image_pair, window_size=5),
    _f("kornia.filters.bilateral_blur", _with((3, 3), 0.1, (1.5, 1.5))),
    _f("kornia.filters.box_blur", _with((3, 3))),
    _f("kornia.color.rgb_to_ycbcr"),
    _f("kornia.color.hsv_to_rgb"),
    _f("kornia.enhance.adjust_gamma", _with(1.2)),
    _f("kornia.enhance.sharpness", _with(0.5)),
    _f("kornia.geometry.transform.hflip"),
    _f("kornia.geometry.transform.pyrdown"),
    _f("kornia.feature.harris_response"),
    _f("kornia.morphology.opening", _with(lambda d: __import__("torch").ones(3, 3, device=d))),
    _m("augmentation.RandomGaussianBlur", "kornia.augmentation.RandomGaussianBlur", kernel_size=(3, 3),
       sigma=(0.1, 2.0), p=1.0),
    _m("augmentation.RandomCrop", "kornia.augmentation.RandomCrop", size=(16, 16)),
    _m("augmentation.RandomErasing", "kornia.augmentation.RandomErasing", p=1.0),
    _m("augmentation.Normalize", "kornia.augmentation.Normalize", mean=0.5, std=0.2),
    _m("filters.Canny", "kornia.filters.Canny"),
]
