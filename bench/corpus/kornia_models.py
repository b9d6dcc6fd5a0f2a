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


def _boxes(device):
    """Two boxes (B x 4 x 2, corners clockwise from top-left) inside a 32 x 32 image."""
    import torch

    box = torch.tensor([[2.0, 3.0], [20.0, 3.0], [20.0, 25.0], [2.0, 25.0]], device=device)
    return box.repeat(2, 1, 1)


def _noise(device):
    import torch

    return torch.rand(2, 2, 32, 32, device=device) * 2 - 1


def _maps(device):
    """``remap`` coordinates: a slightly shifted identity grid (B x H x W each, in pixels)."""
    import torch

    ys, xs = torch.meshgrid(torch.arange(32.0, device=device), torch.arange(32.0, device=device), indexing="ij")
    return (torch.rand(2, 3, 32, 32, device=device), (xs + 0.5).expand(2, 32, 32),
            (ys - 0.5).expand(2, 32, 32)), {}


def _quads(device):
    import torch

    src = _boxes(device)
    return (src, src + torch.randn(2, 4, 2, device=device)), {}


def _points(device):
    import torch

    pts = torch.rand(2, 8, 2, device=device) * 32
    return (pts, pts + 0.1 * torch.randn(2, 8, 2, device=device)), {}


def _axis_angle(device):
    import torch

    return (torch.randn(4, 3, device=device),), {}


def _laf(device):
    """Local affine frames: 2 images x 3 features, B x N x 2 x 3."""
    import kornia.feature as KF
    import torch

    centers = torch.rand(2, 3, 2, device=device) * 16 + 8
    return KF.laf_from_center_scale_ori(centers, torch.full((2, 3, 1, 1), 4.0, device=device),
                                        torch.zeros(2, 3, 1, device=device))


def _laf_patches(device):
    return (torch_rand(device, 2, 3, 32, 32), _laf(device)), {"PS": 16}


def _laf_image(device):
    return (_laf(device), torch_rand(device, 2, 1, 32, 32)), {}


def torch_rand(device, *shape):
    import torch

    return torch.rand(*shape, device=device)


def _center_scale_ori(device):
    import torch

    return (torch.rand(2, 3, 2, device=device) * 32, torch.full((2, 3, 1, 1), 4.0, device=device),
            torch.zeros(2, 3, 1, device=device)), {}


def _seg(device):
    """Logits B x C x H x W and integer labels B x H x W."""
    import torch

    return (torch.randn(2, 4, 8, 8, device=device), torch.randint(0, 4, (2, 8, 8), device=device)), {}


def _tversky(device):
    args, _ = _seg(device)
    return args, {"alpha": 0.3, "beta": 0.7}


def _psnr(device):
    args, _ = _image_pair(device)
    return args, {"max_val": 1.0}


def _iou(device):
    import torch

    return (torch.randint(0, 3, (2, 20), device=device), torch.randint(0, 3, (2, 20), device=device), 3), {}


def _patch_sequential(device):
    import torch
    from kornia import augmentation as K

    model = K.PatchSequential(K.ColorJitter(0.1, 0.1, 0.1, 0.1, p=0.5), K.RandomAffine(degrees=10.0, p=0.5),
                              grid_size=(2, 2), patchwise_apply=False, random_apply=False)
    return model, (torch.rand(2, 3, 32, 32, device=device),), {}


CASES += [
    _f("kornia.geometry.transform.crop_and_resize", _with(_boxes, (16, 16))),
    _f("kornia.geometry.transform.elastic_transform2d", _with(_noise, (7, 7), (4.0, 4.0))),
    _f("kornia.geometry.transform.remap", _maps),
    _f("kornia.geometry.transform.get_perspective_transform", _quads),
    _f("kornia.geometry.transform.center_crop", _with((16, 16))),
    _f("kornia.geometry.conversions.axis_angle_to_rotation_matrix", _axis_angle),
    _f("kornia.geometry.conversions.rotation_matrix_to_quaternion",
       lambda d: ((__import__("kornia").geometry.conversions.axis_angle_to_rotation_matrix(
           __import__("torch").randn(4, 3, device=d)),), {})),
    _f("kornia.geometry.homography.find_homography_dlt", _points),
    _f("kornia.feature.laf_from_center_scale_ori", _center_scale_ori),
    _f("kornia.feature.extract_patches_from_pyramid", _laf_patches),
    _f("kornia.feature.gftt_response"),
    _m("feature.LAFOrienter", "kornia.feature.LAFOrienter", _laf_image, patch_size=16),
    _f("kornia.color.rgb_to_luv"),
    _f("kornia.color.rgb_to_xyz"),
    _f("kornia.enhance.adjust_hue", _with(0.5)),
    _f("kornia.enhance.equalize_clahe"),
    _f("kornia.enhance.posterize", _with(3)),
    _f("kornia.morphology.top_hat", _with(lambda d: __import__("torch").ones(3, 3, device=d))),
    _f("kornia.losses.dice_loss", _seg),
    _f("kornia.losses.tversky_loss", _tversky),
    _f("kornia.losses.total_variation"),
    _f("kornia.metrics.psnr", _psnr),
    _f("kornia.metrics.mean_iou", _iou),
    _f("kornia.filters.unsharp_mask", _with((3, 3), (1.5, 1.5))),
    _f("kornia.filters.motion_blur", _with(5, 45.0, 0.5)),
    _m("augmentation.RandomPerspective", "kornia.augmentation.RandomPerspective", distortion_scale=0.5, p=1.0),
    _m("augmentation.RandomMixUpV2", "kornia.augmentation.RandomMixUpV2", p=1.0),
    _m("augmentation.RandomCutMixV2", "kornia.augmentation.RandomCutMixV2", p=1.0),
    _m("augmentation.RandomRotation", "kornia.augmentation.RandomRotation", degrees=30.0, p=1.0),
    _m("augmentation.RandomElasticTransform", "kornia.augmentation.RandomElasticTransform", kernel_size=(7, 7),
       sigma=(4.0, 4.0), p=1.0),
    Case("kornia", "augmentation.PatchSequential", _patch_sequential),
    _m("augmentation.RandomEqualize", "kornia.augmentation.RandomEqualize", p=1.0),
    _m("augmentation.RandomMotionBlur", "kornia.augmentation.RandomMotionBlur", kernel_size=3, angle=35.0,
       direction=0.5, p=1.0),
    _m("augmentation.RandomThinPlateSpline", "kornia.augmentation.RandomThinPlateSpline", p=1.0),
    _m("augmentation.CenterCrop", "kornia.augmentation.CenterCrop", size=16),
]


def _heatmaps(device):
    return (torch_rand(device, 2, 4, 16, 16),), {}


def _transform_points(device):
    return (_homography(device), torch_rand(device, 2, 10, 2)), {}


def _binary_image(device):
    return ((torch_rand(device, 2, 1, 16, 16) > 0.5).float(),), {"num_iterations": 20}


def _hinge(device):
    import torch

    return (torch.randn(2, 1, 8, 8, device=device), torch.randint(0, 2, (2, 8, 8), device=device)), {}


def _binary_focal(device):
    import torch

    return (torch.randn(2, 1, 8, 8, device=device), torch.randint(0, 2, (2, 1, 8, 8), device=device).float()), {
        "alpha": 0.25, "gamma": 2.0, "reduction": "mean"}


CASES += [
    _m("feature.BlobHessian", "kornia.feature.BlobHessian"),
    _m("feature.TFeat", "kornia.feature.TFeat", _patches, pretrained=False),
    _m("feature.SOSNet", "kornia.feature.SOSNet", _patches, pretrained=False),
    _f("kornia.geometry.subpix.conv_soft_argmax2d", _heatmaps),
    _f("kornia.geometry.subpix.spatial_soft_argmax2d", _heatmaps),
    _f("kornia.geometry.linalg.transform_points", _transform_points),
    _f("kornia.contrib.connected_components", _binary_image),
    _f("kornia.losses.lovasz_hinge_loss", _hinge),
    _f("kornia.losses.binary_focal_loss_with_logits", _binary_focal),
]


def _quaternions(device):
    import torch

    return (torch.nn.functional.normalize(torch.randn(4, 4, device=device), dim=-1),), {}


def _kernel(device):
    import torch

    return torch.ones(1, 3, 3, device=device) / 9.0


def _center_angle_scale(device):
    import torch

    return (torch.rand(2, 2, device=device) * 32, torch.tensor([30.0, 45.0], device=device),
            torch.ones(2, 2, device=device)), {}


# Added in the fourth session (new code, split by the same hash: half of it is held out).
CASES += [
    _f("kornia.color.rgb_to_yuv"),
    _f("kornia.color.rgb_to_hls"),
    _f("kornia.color.lab_to_rgb"),
    _f("kornia.color.grayscale_to_rgb", lambda d: _img(d, channels=1)),
    _f("kornia.enhance.adjust_contrast", _with(0.5)),
    _f("kornia.enhance.adjust_saturation", _with(0.5)),
    _f("kornia.enhance.solarize", _with(0.5)),
    _f("kornia.enhance.invert"),
    _f("kornia.enhance.adjust_log"),
    _f("kornia.enhance.adjust_sigmoid"),
    _f("kornia.geometry.transform.vflip"),
    _f("kornia.geometry.transform.rot180"),
    _f("kornia.geometry.transform.translate", _with(lambda d: __import__("torch").tensor([[2.0, 3.0]] * 2, device=d))),
    _f("kornia.geometry.transform.scale", _with(lambda d: __import__("torch").tensor([[1.2, 1.2]] * 2, device=d))),
    _f("kornia.geometry.transform.shear", _with(lambda d: __import__("torch").tensor([[0.1, 0.1]] * 2, device=d))),
    _f("kornia.geometry.transform.pyrup"),
    _f("kornia.geometry.transform.build_pyramid", _with(3)),
    _f("kornia.geometry.transform.rescale", _with(0.5)),
    _f("kornia.geometry.transform.get_rotation_matrix2d", _center_angle_scale),
    _f("kornia.geometry.conversions.quaternion_to_rotation_matrix", _quaternions),
    _f("kornia.morphology.erosion", _with(lambda d: __import__("torch").ones(3, 3, device=d))),
    _f("kornia.morphology.closing", _with(lambda d: __import__("torch").ones(3, 3, device=d))),
    _f("kornia.morphology.gradient", _with(lambda d: __import__("torch").ones(3, 3, device=d))),
    _f("kornia.losses.psnr_loss", lambda d: (_image_pair(d)[0] + (1.0,), {})),
    _f("kornia.metrics.ssim", _two_images),
    _f("kornia.feature.hessian_response"),
    _f("kornia.filters.spatial_gradient"),
    _f("kornia.filters.filter2d", _with(_kernel)),
    _f("kornia.filters.guided_blur", lambda d: (_image_pair(d)[0] + (3, 0.1), {})),
    _f("kornia.enhance.denormalize", _with(lambda d: __import__("torch").tensor([0.5, 0.5, 0.5], device=d),
                                           lambda d: __import__("torch").tensor([0.2, 0.2, 0.2], device=d))),
    _m("enhance.Normalize", "kornia.enhance.Normalize", mean=0.5, std=0.2),
    _m("filters.BoxBlur", "kornia.filters.BoxBlur", kernel_size=(3, 3)),
    _m("filters.Sobel", "kornia.filters.Sobel"),
    _m("augmentation.RandomGrayscale", "kornia.augmentation.RandomGrayscale", p=1.0),
    _m("augmentation.RandomSharpness", "kornia.augmentation.RandomSharpness", p=1.0),
    _m("augmentation.RandomSolarize", "kornia.augmentation.RandomSolarize", p=1.0),
    _m("augmentation.RandomPosterize", "kornia.augmentation.RandomPosterize", p=1.0),
    _m("augmentation.RandomVerticalFlip", "kornia.augmentation.RandomVerticalFlip", p=1.0),
    _m("augmentation.RandomChannelShuffle", "kornia.augmentation.RandomChannelShuffle", p=1.0),
    _m("augmentation.RandomInvert", "kornia.augmentation.RandomInvert", p=1.0),
]


def _depth_camera(device):
    """A positive depth map B x H x W and pinhole intrinsics B x 3 x 3."""
    import torch

    camera = torch.tensor([[20.0, 0.0, 16.0], [0.0, 20.0, 16.0], [0.0, 0.0, 1.0]], device=device).repeat(2, 1, 1)
    return (torch.rand(2, 32, 32, device=device) + 0.5, camera), {}


def _distributions(device):
    """Two spatial probability maps (softmax over H x W), B x C x H x W."""
    import torch

    def spatial_softmax():
        return torch.randn(2, 3, 8, 8, device=device).flatten(2).softmax(-1).view(2, 3, 8, 8)

    return (spatial_softmax(), spatial_softmax()), {}


def _tiny_vit(device):
    import torch
    from kornia.contrib import TinyViT

    model = TinyViT(img_size=64, in_chans=3, num_classes=4, embed_dims=(8, 16, 16, 32), depths=(1, 1, 1, 1),
                    num_heads=(1, 2, 2, 4), window_sizes=(2, 2, 2, 2))
    return model, (torch.rand(2, 3, 64, 64, device=device),), {}


# Fifteenth session: more dev cases (names that hash to dev only).
CASES += [
    _f("kornia.filters.max_blur_pool2d", _with(3)),
    _f("kornia.geometry.depth.depth_to_3d_v2", _depth_camera),
    _f("kornia.losses.js_div_loss_2d", _distributions),
    _m("augmentation.RandomGamma", "kornia.augmentation.RandomGamma", gamma=(0.5, 1.5), p=1.0),
    Case("kornia", "contrib.TinyViT", _tiny_vit),
]


def _homogeneous_points(dims: int):
    def inputs(device):
        import torch

        return (torch.rand(2, 10, dims, device=device) + 0.5,), {}

    return inputs



def _fundamental_inputs(device):
    import torch

    points = torch.rand(2, 12, 2, device=device) * 32
    return (points, points + torch.randn(2, 12, 2, device=device), torch.ones(2, 12, device=device)), {}


def _heatmap(device):
    import torch

    return (torch.rand(2, 3, 16, 16, device=device), (3, 3)), {}


def _scale_space(device):
    import torch

    return (torch.rand(1, 2, 3, 16, 16, device=device),), {}


def _bbox_mask_inputs(device):
    import torch

    boxes = torch.tensor([[[2.0, 2.0], [10.0, 2.0], [10.0, 12.0], [2.0, 12.0]]], device=device).repeat(2, 1, 1)
    return (boxes, 32, 32), {}


def _depth_3d(device):
    depth, camera = _depth_camera(device)[0]
    return (depth[:, None], camera), {}


def _descriptors(device):
    import torch

    return (torch.randn(10, 16, device=device), torch.randn(12, 16, device=device), 0.9), {}


def _raw_bayer(device):
    import torch
    from kornia.color import CFA

    return (torch.rand(2, 1, 32, 32, device=device), CFA.BG), {}


def _joint_bilateral(device):
    import torch

    return (torch.rand(2, 3, 16, 16, device=device), torch.rand(2, 3, 16, 16, device=device), (5, 5), 0.1,
            (1.5, 1.5)), {}


def _class_scores(device):
    import torch

    return (torch.randn(2, 3, 16, 16, device=device), torch.randint(0, 3, (2, 16, 16), device=device)), {}


def _predictions(device):
    import torch

    return (torch.randn(8, 4, device=device), torch.randint(0, 4, (8,), device=device)), {}


def _flows(device):
    import torch

    return (torch.randn(2, 16, 16, 2, device=device), torch.randn(2, 16, 16, 2, device=device)), {}


def _meshgrid(device):
    return (8, 8), {"device": device}


def _small_image_pair(device):
    import torch

    return (torch.rand(2, 3, 16, 16, device=device), torch.rand(2, 3, 16, 16, device=device)), {}


# Eighteenth session: more dev cases (names that hash to dev only).
CASES += [
    _f("kornia.geometry.conversions.convert_points_from_homogeneous", _homogeneous_points(3)),
    _f("kornia.geometry.conversions.angle_axis_to_rotation_matrix", _axis_angle),
    _f("kornia.geometry.epipolar.find_fundamental", _fundamental_inputs),
    _f("kornia.geometry.subpix.nms2d", _heatmap),
    _f("kornia.geometry.subpix.conv_quad_interp3d", _scale_space),
    _f("kornia.geometry.bbox.bbox_to_mask", _bbox_mask_inputs),
    _f("kornia.geometry.depth.depth_to_3d", _depth_3d),
    _f("kornia.feature.match_snn", _descriptors),
    _f("kornia.color.raw_to_rgb", _raw_bayer),
    _f("kornia.filters.joint_bilateral_blur", _joint_bilateral),
    _f("kornia.filters.blur_pool2d", _with(3)),
    _f("kornia.losses.lovasz_softmax_loss", _class_scores),
    _f("kornia.losses.welsch_loss", _small_image_pair),
    _f("kornia.metrics.accuracy", _predictions),
    _f("kornia.metrics.aepe", _flows),
    _f("kornia.utils.create_meshgrid", _meshgrid),
]
