"""MONAI networks for the corpus: 2-D (a few 3-D), tiny channel counts, 32 x 32 inputs."""

from __future__ import annotations

from bench.corpus import Case, function_case


def _net(cls: str, shape: tuple[int, ...] = (2, 1, 32, 32), **kwargs):
    def factory(device):
        import torch
        from monai.networks import nets

        model = getattr(nets, cls)(**kwargs)
        return model, (torch.randn(*shape, device=device),), {}

    return factory


def _loss(cls: str, **kwargs):
    def factory(device):
        import torch
        from monai import losses

        loss = getattr(losses, cls)(**kwargs)
        pred = torch.randn(2, 3, 16, 16, device=device)
        target = torch.randint(0, 3, (2, 1, 16, 16), device=device)
        return loss, (pred, target), {}

    return factory


def _pair(cls: str, shape: tuple[int, ...] = (2, 1, 16, 16), **kwargs):
    """A loss of two images of the same shape (registration / similarity losses)."""

    def factory(device):
        import torch
        from monai import losses

        return getattr(losses, cls)(**kwargs), (torch.rand(*shape, device=device),
                                                torch.rand(*shape, device=device)), {}

    return factory


def _diffusion_unet(device):
    import torch
    from monai.networks.nets import DiffusionModelUNet

    model = DiffusionModelUNet(spatial_dims=2, in_channels=1, out_channels=1, channels=(8, 8), norm_num_groups=8,
                               attention_levels=(False, True), num_res_blocks=1, num_head_channels=8)
    return model, (torch.randn(1, 1, 16, 16, device=device), torch.tensor([10], device=device)), {}


def _block(cls: str, shape: tuple[int, ...], **kwargs):
    def factory(device):
        import torch
        from monai.networks import blocks

        return getattr(blocks, cls)(**kwargs), (torch.randn(*shape, device=device),), {}

    return factory


CASES: list[Case] = [
    Case("monai", "UNet", _net("UNet", spatial_dims=2, in_channels=1, out_channels=2, channels=(4, 8, 16),
                               strides=(2, 2), num_res_units=1)),
    Case("monai", "BasicUNet", _net("BasicUNet", spatial_dims=2, in_channels=1, out_channels=2,
                                    features=(4, 4, 8, 8, 16, 4))),
    Case("monai", "DynUNet", _net("DynUNet", spatial_dims=2, in_channels=1, out_channels=2, kernel_size=[3, 3, 3],
                                  strides=[1, 2, 2], upsample_kernel_size=[2, 2], filters=[4, 8, 16])),
    Case("monai", "SegResNet", _net("SegResNet", spatial_dims=2, init_filters=4, in_channels=1, out_channels=2,
                                    blocks_down=(1, 1, 1), blocks_up=(1, 1), norm=("GROUP", {"num_groups": 2}))),
    Case("monai", "SegResNetVAE", _net("SegResNetVAE", input_image_size=(32, 32), spatial_dims=2, init_filters=4,
                                       in_channels=1, out_channels=2, blocks_down=(1, 1, 1), blocks_up=(1, 1), norm=("GROUP", {"num_groups": 2}))),
    Case("monai", "AttentionUnet", _net("AttentionUnet", spatial_dims=2, in_channels=1, out_channels=2,
                                        channels=(4, 8, 16), strides=(2, 2))),
    Case("monai", "UNETR", _net("UNETR", in_channels=1, out_channels=2, img_size=(32, 32), feature_size=4,
                                hidden_size=32, mlp_dim=64, num_heads=2, spatial_dims=2)),
    Case("monai", "SwinUNETR", _net("SwinUNETR", (2, 1, 64, 64), in_channels=1, out_channels=2, feature_size=12,
                                    depths=(1, 1, 1, 1), num_heads=(1, 1, 1, 1), spatial_dims=2)),
    Case("monai", "VNet", _net("VNet", (2, 1, 16, 16, 16), spatial_dims=3, in_channels=1, out_channels=2)),
    Case("monai", "DenseNet121", _net("DenseNet", spatial_dims=2, in_channels=1, out_channels=2, init_features=8,
                                      growth_rate=4, block_config=(2, 2))),
    Case("monai", "ResNet", _net("ResNet", block="basic", layers=(1, 1, 1, 1), block_inplanes=(4, 8, 16, 32),
                                 spatial_dims=2, n_input_channels=1, num_classes=2)),
    Case("monai", "HighResNet", _net("HighResNet", spatial_dims=2, in_channels=1, out_channels=2)),
    Case("monai", "AutoEncoder", _net("AutoEncoder", spatial_dims=2, in_channels=1, out_channels=1,
                                      channels=(4, 8), strides=(2, 2))),
    Case("monai", "VarAutoEncoder", _net("VarAutoEncoder", spatial_dims=2, in_shape=(1, 32, 32), out_channels=1,
                                         latent_size=4, channels=(4, 8), strides=(2, 2))),
    Case("monai", "ViT", _net("ViT", in_channels=1, img_size=(32, 32), patch_size=(8, 8), hidden_size=32,
                              mlp_dim=64, num_layers=2, num_heads=2, spatial_dims=2, classification=True)),
    Case("monai", "EfficientNetBN", _net("EfficientNetBN", model_name="efficientnet-b0", pretrained=False,
                                         spatial_dims=2, in_channels=1, num_classes=2)),
    Case("monai", "FlexibleUNet", _net("FlexibleUNet", in_channels=1, out_channels=2, backbone="efficientnet-b0",
                                       pretrained=False, spatial_dims=2)),
    Case("monai", "DiceLoss", _loss("DiceLoss", to_onehot_y=True, softmax=True)),
    Case("monai", "DiceCELoss", _loss("DiceCELoss", to_onehot_y=True, softmax=True)),
    Case("monai", "FocalLoss", _loss("FocalLoss", to_onehot_y=True)),
    Case("monai", "TverskyLoss", _loss("TverskyLoss", to_onehot_y=True, softmax=True)),
    Case("monai", "Classifier", _net("Classifier", in_shape=(1, 32, 32), classes=2, channels=(4, 8),
                                     strides=(2, 2))),
    Case("monai", "Generator", _net("Generator", (2, 4), latent_shape=(4,), start_shape=(8, 4, 4), channels=(4, 1),
                                    strides=(2, 2))),
    Case("monai", "SEResNet50", _net("SEResNet50", spatial_dims=2, in_channels=1, num_classes=2)),
    Case("monai", "BasicUNetPlusPlus", _net("BasicUNetPlusPlus", spatial_dims=2, in_channels=1, out_channels=2,
                                            features=(4, 4, 8, 8, 16, 4))),
    Case("monai", "SegResNetDS", _net("SegResNetDS", spatial_dims=2, init_filters=4, in_channels=1, out_channels=2,
                                      blocks_down=(1, 1, 1))),
    Case("monai", "LocalNet", _net("LocalNet", spatial_dims=2, in_channels=1, num_channel_initial=4,
                                   extract_levels=(0, 1, 2), out_channels=2)),
    Case("monai", "MedNeXt", _net("MedNeXt", spatial_dims=2, in_channels=1, out_channels=2, init_filters=4,
                                  blocks_down=(1, 1, 1, 1), blocks_bottleneck=1, blocks_up=(1, 1, 1, 1))),
    Case("monai", "ViTAutoEnc", _net("ViTAutoEnc", in_channels=1, img_size=(32, 32), patch_size=(4, 4),
                                     hidden_size=32, mlp_dim=64, num_layers=1, num_heads=2, spatial_dims=2)),
    Case("monai", "DiffusionModelUNet", _diffusion_unet),
    Case("monai", "GeneralizedDiceLoss", _loss("GeneralizedDiceLoss", to_onehot_y=True, softmax=True)),
    Case("monai", "DiceFocalLoss", _loss("DiceFocalLoss", to_onehot_y=True, softmax=True)),
    Case("monai", "SSIMLoss", _pair("SSIMLoss", spatial_dims=2, win_size=5)),
    Case("monai", "LocalNormalizedCrossCorrelationLoss", _pair("LocalNormalizedCrossCorrelationLoss",
                                                               spatial_dims=2, kernel_size=3)),
    Case("monai", "GlobalMutualInformationLoss", _pair("GlobalMutualInformationLoss", num_bins=8)),
    Case("monai", "blocks.UnetResBlock", _block("UnetResBlock", (2, 4, 16, 16), spatial_dims=2, in_channels=4,
                                                out_channels=8, kernel_size=3, stride=1, norm_name="instance")),
    Case("monai", "blocks.SABlock", _block("SABlock", (2, 6, 16), hidden_size=16, num_heads=2)),
    Case("monai", "blocks.ResidualUnit", _block("ResidualUnit", (2, 4, 16, 16), spatial_dims=2, in_channels=4,
                                                out_channels=8, strides=2, subunits=2)),
]


def _onehot_pair(device, channels=3):
    """Binary one-hot prediction and label, B x C x H x W (what monai.metrics take)."""
    import torch
    import torch.nn.functional as F

    def onehot(labels):
        return F.one_hot(labels, channels).permute(0, 3, 1, 2).float()

    return (onehot(torch.randint(0, channels, (2, 16, 16), device=device)),
            onehot(torch.randint(0, channels, (2, 16, 16), device=device))), {}


def _metric(target: str):
    return function_case("monai", target, _onehot_pair)


def _sliding_window(device):
    import torch

    predictor = torch.nn.Conv2d(1, 2, 3, padding=1).to(device)
    return (torch.randn(1, 1, 32, 32, device=device), (16, 16), 2, predictor), {"overlap": 0.25}


def _probabilities(cls: str, **kwargs):
    """A loss of a prediction and a label of the same shape (B x C x H x W, values in [0, 1])."""

    def factory(device):
        import torch
        from monai import losses

        pred = torch.rand(2, 2, 16, 16, device=device)
        target = (torch.rand(2, 2, 16, 16, device=device) > 0.5).float()
        return getattr(losses, cls)(**kwargs), (pred, target), {}

    return factory


def _wasserstein(device):
    import numpy as np
    import torch
    from monai.losses import GeneralizedWassersteinDiceLoss

    loss = GeneralizedWassersteinDiceLoss(dist_matrix=np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5], [1.0, 0.5, 0.0]]))
    return loss, (torch.randn(2, 3, 16, 16, device=device), torch.randint(0, 3, (2, 16, 16), device=device)), {}


def _ddf_loss(cls: str, **kwargs):
    """A regularisation loss of one dense displacement field (B x 2 x H x W)."""

    def factory(device):
        import torch
        from monai import losses

        return getattr(losses, cls)(**kwargs), (torch.randn(2, 2, 16, 16, device=device),), {}

    return factory


def _warp(device):
    import torch
    from monai.networks.blocks import Warp

    return Warp(), (torch.rand(2, 1, 16, 16, device=device), torch.randn(2, 2, 16, 16, device=device)), {}


CASES += [
    Case("monai", "Regressor", _net("Regressor", in_shape=(1, 32, 32), out_shape=(2,), channels=(4, 8),
                                    strides=(2, 2))),
    Case("monai", "Discriminator", _net("Discriminator", in_shape=(1, 32, 32), channels=(4, 8), strides=(2, 2))),
    Case("monai", "RegUNet", _net("RegUNet", spatial_dims=2, in_channels=1, num_channel_initial=4, depth=2,
                                  out_channels=2)),
    Case("monai", "GlobalNet", _net("GlobalNet", (2, 2, 32, 32), image_size=(32, 32), spatial_dims=2,
                                    in_channels=2, num_channel_initial=4, depth=2)),
    Case("monai", "VQVAE", _net("VQVAE", (2, 1, 16, 16), spatial_dims=2, in_channels=1, out_channels=1,
                                channels=(8, 8), num_res_channels=8, num_res_layers=1,
                                downsample_parameters=((2, 4, 1, 1), (2, 4, 1, 1)),
                                upsample_parameters=((2, 4, 1, 1, 0), (2, 4, 1, 1, 0)), num_embeddings=16,
                                embedding_dim=8)),
    Case("monai", "AutoencoderKL", _net("AutoencoderKL", (2, 1, 16, 16), spatial_dims=2, in_channels=1,
                                        out_channels=1, channels=(8, 8), latent_channels=4, num_res_blocks=1,
                                        norm_num_groups=8, attention_levels=(False, True))),
    Case("monai", "VarFullyConnectedNet", _net("VarFullyConnectedNet", (2, 16), in_channels=16, out_channels=16,
                                               latent_size=4, encode_channels=(8,), decode_channels=(8,))),
    Case("monai", "PatchDiscriminator", _net("PatchDiscriminator", num_layers_d=2, spatial_dims=2, channels=8,
                                             in_channels=1, out_channels=1)),
    Case("monai", "MaskedDiceLoss", _loss("MaskedDiceLoss", to_onehot_y=True, softmax=True)),
    Case("monai", "GeneralizedWassersteinDiceLoss", _wasserstein),
    Case("monai", "SoftDiceclDiceLoss", _probabilities("SoftDiceclDiceLoss")),
    Case("monai", "BendingEnergyLoss", _ddf_loss("BendingEnergyLoss")),
    Case("monai", "GeneralizedDiceFocalLoss", _loss("GeneralizedDiceFocalLoss", to_onehot_y=True, softmax=True)),
    Case("monai", "AsymmetricUnifiedFocalLoss", _probabilities("AsymmetricUnifiedFocalLoss")),
    _metric("monai.metrics.compute_dice"),
    _metric("monai.metrics.compute_iou"),
    _metric("monai.metrics.get_confusion_matrix"),
    _metric("monai.metrics.compute_generalized_dice"),
    function_case("monai", "monai.inferers.sliding_window_inference", _sliding_window),
    Case("monai", "blocks.SimpleASPP", _block("SimpleASPP", (2, 4, 16, 16), spatial_dims=2, in_channels=4,
                                              conv_out_channels=2)),
    Case("monai", "blocks.ResidualSELayer", _block("ResidualSELayer", (2, 4, 16, 16), spatial_dims=2,
                                                   in_channels=4)),
    Case("monai", "blocks.SubpixelUpsample", _block("SubpixelUpsample", (2, 4, 16, 16), spatial_dims=2,
                                                    in_channels=4, scale_factor=2)),
    Case("monai", "blocks.PatchEmbeddingBlock", _block("PatchEmbeddingBlock", (2, 1, 32, 32), in_channels=1,
                                                       img_size=(32, 32), patch_size=(8, 8), hidden_size=32,
                                                       num_heads=2, spatial_dims=2)),
    Case("monai", "blocks.CrossAttentionBlock", _block("CrossAttentionBlock", (2, 6, 16), hidden_size=16,
                                                       num_heads=2)),
    Case("monai", "blocks.Warp", _warp),
    Case("monai", "blocks.DVF2DDF", _block("DVF2DDF", (2, 2, 16, 16), num_steps=3)),
]


def _layer(cls: str, shape: tuple[int, ...] = (2, 1, 16, 16), **kwargs):
    def factory(device):
        import torch
        from monai.networks import layers

        return getattr(layers, cls)(**kwargs), (torch.rand(*shape, device=device),), {}

    return Case("monai", f"layers.{cls}", factory)


CASES += [
    _layer("GaussianFilter", spatial_dims=2, sigma=1.0),
    _layer("MedianFilter", radius=1, spatial_dims=2),
    _layer("SavitzkyGolayFilter", window_length=5, order=2, axis=2),
    _layer("HilbertTransform", axis=2),
]


# Added in the fourth session (new code, split by the same hash: half of it is held out).
CASES += [
    Case("monai", "SENet154", _net("SENet154", spatial_dims=2, in_channels=1, num_classes=2)),
    Case("monai", "DenseNet169", _net("DenseNet169", spatial_dims=2, in_channels=1, out_channels=2)),
    Case("monai", "UNetDropout", _net("UNet", spatial_dims=2, in_channels=1, out_channels=2, channels=(4, 8),
                                  strides=(2,), num_res_units=2, dropout=0.1)),
    Case("monai", "TverskyLossSigmoid", _loss("TverskyLoss", to_onehot_y=True, sigmoid=True)),
    Case("monai", "FocalLossGamma", _loss("FocalLoss", to_onehot_y=True, gamma=1.5)),
    Case("monai", "DiceCELossWeighted", _loss("DiceCELoss", to_onehot_y=True, softmax=True, lambda_dice=0.5)),
    _layer("Flatten"),
    Case("monai", "blocks.MaxAvgPool", _block("MaxAvgPool", (2, 1, 16, 16), spatial_dims=2, kernel_size=2)),
    Case("monai", "blocks.ChannelSELayer", _block("ChannelSELayer", (2, 4, 16, 16), spatial_dims=2, in_channels=4)),
    Case("monai", "blocks.UpSample", _block("UpSample", (2, 4, 16, 16), spatial_dims=2, in_channels=4,
                                            out_channels=4, scale_factor=2)),
    Case("monai", "blocks.Convolution", _block("Convolution", (2, 4, 16, 16), spatial_dims=2, in_channels=4,
                                               out_channels=4, dropout=0.1, norm="batch")),
    Case("monai", "blocks.MLPBlock", _block("MLPBlock", (2, 8, 16), hidden_size=16, mlp_dim=32, dropout_rate=0.1)),
]


def _embeddings(cls: str, **kwargs):
    """A loss of two batches of embeddings (B x D), e.g. self-supervised losses."""

    def factory(device):
        import torch
        from monai import losses

        return getattr(losses, cls)(**kwargs), (torch.randn(4, 8, device=device),
                                                torch.randn(4, 8, device=device)), {}

    return factory


def _boxes(device):
    """Eight 2-D boxes (x1, y1, x2, y2) and their scores."""
    import torch

    xy = torch.rand(8, 2, device=device) * 20
    return torch.cat([xy, xy + torch.rand(8, 2, device=device) * 10 + 1], dim=1), torch.rand(8, device=device)


def _clip_boxes(device):
    return (_boxes(device)[0], (24, 24)), {}


def _nms(device):
    boxes, scores = _boxes(device)
    return (boxes, scores), {"nms_thresh": 0.5}


def _batched_nms(device):
    import torch

    boxes, scores = _boxes(device)
    return (boxes, scores, torch.randint(0, 2, (8,), device=device)), {"nms_thresh": 0.5}


def _box_centers(device):
    return (_boxes(device)[0],), {}




def _variance_inputs(device):
    import torch

    return (torch.rand(4, 2, 8, 8, device=device),), {}


def _mmd_inputs(device):
    import torch

    return (torch.randn(4, 1, 8, 8, device=device), torch.randn(4, 1, 8, 8, device=device), None), {}


def _transformer_block(device):
    import torch
    from monai.networks.blocks import TransformerBlock

    return TransformerBlock(hidden_size=16, mlp_dim=32, num_heads=2), (torch.randn(2, 6, 16, device=device),), {}


def _unetr_up(device):
    import torch
    from monai.networks.blocks import UnetrUpBlock

    block = UnetrUpBlock(spatial_dims=2, in_channels=8, out_channels=4, kernel_size=3, upsample_kernel_size=2,
                         norm_name="instance")
    return block, (torch.randn(1, 8, 8, 8, device=device), torch.randn(1, 4, 16, 16, device=device)), {}


def _control_net(device):
    import torch
    from monai.networks.nets import ControlNet

    model = ControlNet(spatial_dims=2, in_channels=1, channels=(8, 8), attention_levels=(False, True),
                       num_res_blocks=1, num_head_channels=8, norm_num_groups=8,
                       conditioning_embedding_num_channels=(8,))
    return model, (torch.randn(1, 1, 16, 16, device=device), torch.tensor([10], device=device),
                   torch.randn(1, 1, 16, 16, device=device)), {}


def _nacl(device):
    import torch
    from monai.losses import NACLLoss

    return NACLLoss(classes=3, dim=2), (torch.randn(2, 3, 16, 16, device=device),
                                        torch.randint(0, 3, (2, 16, 16), device=device)), {}


def _panoptic(device):
    """Instance and class maps, B x 2 x H x W (what compute_panoptic_quality takes)."""
    import torch

    def maps():
        return torch.stack([torch.randint(0, 4, (2, 16, 16), device=device),
                            torch.randint(0, 3, (2, 16, 16), device=device)], dim=1)

    return (maps(), maps()), {}


# Ninth session: more losses, metrics, box utilities and blocks. Only names whose hash puts them
# in the dev half were added, so that the held-out half stays the set measured before.
CASES += [
    Case("monai", "NACLLoss", _nacl),
    Case("monai", "SoftclDiceLoss", _probabilities("SoftclDiceLoss")),
    Case("monai", "BarlowTwinsLoss", _embeddings("BarlowTwinsLoss")),
    Case("monai", "SSIMLoss3D", _pair("SSIMLoss", (2, 1, 12, 12, 12), spatial_dims=3, win_size=5)),
    function_case("monai", "monai.metrics.compute_absolute_volume_difference", _onehot_pair),
    function_case("monai", "monai.metrics.compute_panoptic_quality", _panoptic),
    function_case("monai", "monai.metrics.compute_variance", _variance_inputs),
    function_case("monai", "monai.metrics.compute_mmd", _mmd_inputs),
    function_case("monai", "monai.data.box_utils.clip_boxes_to_image", _clip_boxes),
    function_case("monai", "monai.data.box_utils.non_max_suppression", _nms),
    function_case("monai", "monai.data.box_utils.batched_nms", _batched_nms),
    function_case("monai", "monai.data.box_utils.box_centers", _box_centers),
    Case("monai", "blocks.TransformerBlock", _transformer_block),
    Case("monai", "blocks.UnetrUpBlock", _unetr_up),
    Case("monai", "ControlNet", _control_net),
    Case("monai", "Critic", _net("Critic", (2, 1, 16, 16), in_shape=(1, 16, 16), channels=(4, 8), strides=(2, 2))),
    Case("monai", "SegResNetDS2", _net("SegResNetDS2", spatial_dims=2, init_filters=4, in_channels=1, out_channels=2,
                                       blocks_down=(1, 1, 1))),
]


def _method_call(cls_path: str, method: str, build_args: tuple, build_kwargs: dict, inputs):
    """`cls(*build_args, **build_kwargs).<method>(*inputs(device))`, compiled as a bound method."""

    def factory(device):
        import importlib

        module, _, cls = cls_path.rpartition(".")
        obj = getattr(importlib.import_module(module), cls)(*build_args, **build_kwargs)
        args, kwargs = inputs(device)
        return getattr(obj, method), args, kwargs

    return factory


def _method_case(name: str, cls_path: str, method: str, inputs, *build_args, **build_kwargs) -> Case:
    return Case("monai", name, _method_call(cls_path, method, build_args, build_kwargs, inputs),
                target=f"{cls_path}.{method}", modes=("call",))


def _images(device):
    import torch

    return (torch.rand(2, 1, 16, 16, device=device), torch.rand(2, 1, 16, 16, device=device)), {}


def _box_pairs(device):
    boxes, _ = _boxes(device)
    return (boxes, boxes[[1, 0, 3, 2, 5, 4, 7, 6]]), {}


def _ssim_inputs(device):
    import torch

    return (torch.rand(2, 1, 16, 16, device=device), torch.rand(2, 1, 16, 16, device=device), 2, [5, 5],
            [1.5, 1.5]), {}


def _affine_inputs(device):
    import torch

    return (torch.eye(3, device=device).unsqueeze(0).repeat(2, 1, 1), (16, 16), (8, 8)), {}


def _unshuffle_inputs(device):
    import torch

    return (torch.randn(1, 2, 8, 8, device=device), 2, 2), {}


def _centers_inputs(device):
    boxes, _ = _boxes(device)
    return ((boxes[:, :2] + boxes[:, 2:]) / 2, boxes), {}


def _standard_mode_inputs(device):
    boxes, _ = _boxes(device)
    return (boxes,), {"mode": "xyxy"}


def _deep_supervision(device):
    import torch
    from monai.networks.nets import DynUNet

    model = DynUNet(spatial_dims=2, in_channels=1, out_channels=2, kernel_size=[3, 3, 3], strides=[1, 2, 2],
                    upsample_kernel_size=[2, 2], filters=[4, 8, 16], deep_supervision=True, deep_supr_num=1)
    return model, (torch.randn(2, 1, 32, 32, device=device),), {}


# Ninth session, second batch (dev half only, as above).
CASES += [
    _method_case("metrics.ConfusionMatrixMetric", "monai.metrics.ConfusionMatrixMetric", "_compute_tensor",
                 _onehot_pair, metric_name=["sensitivity", "precision"]),
    _method_case("metrics.GeneralizedDiceScore", "monai.metrics.GeneralizedDiceScore", "_compute_tensor",
                 _onehot_pair),
    _method_case("metrics.PSNRMetric", "monai.metrics.PSNRMetric", "_compute_metric", _images, 1.0),
    _method_case("metrics.MSEMetric", "monai.metrics.MSEMetric", "_compute_metric", _images),
    _method_case("apps.detection.BoxCoder", "monai.apps.detection.utils.box_coder.BoxCoder", "encode_single",
                 _box_pairs, (1.0, 1.0, 1.0, 1.0)),
    function_case("monai", "monai.metrics.compute_ssim_and_cs", _ssim_inputs),
    function_case("monai", "monai.networks.utils.to_norm_affine", _affine_inputs),
    function_case("monai", "monai.networks.utils.pixelunshuffle", _unshuffle_inputs),
    function_case("monai", "monai.data.box_utils.centers_in_boxes", _centers_inputs),
    function_case("monai", "monai.data.box_utils.convert_box_to_standard_mode", _standard_mode_inputs),
    Case("monai", "MaskedAutoEncoderViT", _net("MaskedAutoEncoderViT", (2, 1, 16, 16), in_channels=1,
                                               img_size=(16, 16), patch_size=(4, 4), hidden_size=16, mlp_dim=32,
                                               num_layers=1, num_heads=2, decoder_hidden_size=16,
                                               decoder_mlp_dim=32, decoder_num_layers=1, decoder_num_heads=2,
                                               spatial_dims=2)),
    Case("monai", "DynUNet_deep_supervision", _deep_supervision),
    Case("monai", "DiceCELoss_sigmoid", _probabilities("DiceCELoss", sigmoid=True)),
    Case("monai", "TverskyLoss_sigmoid_batch", _probabilities("TverskyLoss", sigmoid=True, batch=True)),
    Case("monai", "GeneralizedDiceLoss_sigmoid", _probabilities("GeneralizedDiceLoss", sigmoid=True)),
    Case("monai", "blocks.UnetOutBlock", _block("UnetOutBlock", (2, 4, 16, 16), spatial_dims=2, in_channels=4,
                                                out_channels=2)),
    Case("monai", "blocks.ResBlock", _block("ResBlock", (2, 4, 16, 16), spatial_dims=2, in_channels=4,
                                            norm=("GROUP", {"num_groups": 2}))),
    Case("monai", "blocks.Swish", _block("Swish", (2, 4, 16, 16))),
    Case("monai", "blocks.RegistrationResidualConvBlock", _block("RegistrationResidualConvBlock", (2, 4, 16, 16),
                                                                 spatial_dims=2, in_channels=4, out_channels=4)),
]


def _decoder_only_transformer(device):
    import torch
    from monai.networks.nets import DecoderOnlyTransformer

    model = DecoderOnlyTransformer(num_tokens=16, max_seq_len=8, attn_layers_dim=16, attn_layers_depth=1,
                                   attn_layers_heads=2)
    return model, (torch.randint(0, 16, (2, 8), device=device),), {}


def _spade_net(device):
    import torch
    import torch.nn.functional as F
    from monai.networks.nets import SPADENet

    model = SPADENet(spatial_dims=2, in_channels=1, out_channels=1, label_nc=3, input_shape=(16, 16),
                     channels=[8, 16], z_dim=8, is_vae=True, spade_intermediate_channels=8)
    seg = F.one_hot(torch.randint(0, 3, (2, 16, 16), device=device), 3).permute(0, 3, 1, 2).float()
    return model, (seg, torch.rand(2, 1, 16, 16, device=device)), {}


def _patch_adversarial(device):
    """PatchAdversarialLoss on a patch discriminator's logits, as the generator's loss (target is real)."""
    import torch
    from monai.losses import PatchAdversarialLoss

    return PatchAdversarialLoss(criterion="least_squares"), (torch.randn(2, 1, 8, 8, device=device),), {
        "target_is_real": True, "for_discriminator": False}


def _aucm(device):
    import torch
    from monai.losses import AUCMLoss

    return AUCMLoss(imratio=0.5), (torch.rand(8, 1, device=device),
                                   torch.randint(0, 2, (8, 1), device=device).float()), {}


def _unetr_pr_up(device):
    import torch
    from monai.networks.blocks import UnetrPrUpBlock

    block = UnetrPrUpBlock(spatial_dims=2, in_channels=16, out_channels=4, num_layer=1, kernel_size=3, stride=1,
                           upsample_kernel_size=2, norm_name="instance", conv_block=True, res_block=True)
    return block, (torch.randn(2, 16, 4, 4, device=device),), {}


def _fpn(device):
    import torch
    from monai.networks.blocks import FeaturePyramidNetwork

    fpn = FeaturePyramidNetwork(spatial_dims=2, in_channels_list=[4, 8, 16], out_channels=8)
    feats = {"c2": torch.randn(2, 4, 16, 16, device=device), "c3": torch.randn(2, 8, 8, 8, device=device),
             "c4": torch.randn(2, 16, 4, 4, device=device)}
    return fpn, (feats,), {}


def _affine_transform(device):
    import torch
    from monai.networks.layers import AffineTransform

    theta = torch.eye(2, 3, device=device).repeat(2, 1, 1) + 0.05 * torch.randn(2, 2, 3, device=device)
    return AffineTransform(normalized=True), (torch.rand(2, 1, 16, 16, device=device), theta), {}


def _transform_call(name: str, cls: str, inputs, **kwargs) -> Case:
    """An array transform (``monai.transforms.<cls>``) called on a tensor, compiled as its bound ``__call__``."""
    return _method_case(name, f"monai.transforms.{cls}", "__call__", inputs, **kwargs)


def _channel_first_image(device):
    import torch

    return (torch.rand(1, 16, 16, device=device),), {}


def _rescale_inputs(device):
    import torch

    return (torch.randn(2, 1, 16, 16, device=device),), {"minv": 0.0, "maxv": 1.0, "dtype": torch.float32}


# Fifteenth session: more dev cases (names that hash to dev only).
CASES += [
    Case("monai", "DecoderOnlyTransformer", _decoder_only_transformer),
    Case("monai", "SPADENet", _spade_net),
    Case("monai", "PatchAdversarialLoss", _patch_adversarial),
    Case("monai", "AUCMLoss", _aucm),
    Case("monai", "blocks.UnetrPrUpBlock", _unetr_pr_up),
    Case("monai", "blocks.FeaturePyramidNetwork", _fpn),
    Case("monai", "blocks.MedNeXtDownBlock", _block("MedNeXtDownBlock", (2, 4, 16, 16), in_channels=4,
                                                    out_channels=8, expansion_ratio=2, kernel_size=3,
                                                    use_residual_connection=True, dim="2d")),
    Case("monai", "layers.AffineTransform", _affine_transform),
    _transform_call("transforms.GaussianSmooth", "GaussianSmooth", _channel_first_image, sigma=1.0),
    _transform_call("transforms.NormalizeIntensity", "NormalizeIntensity", _channel_first_image, nonzero=True),
    function_case("monai", "monai.transforms.rescale_array", _rescale_inputs),
]


def _dints(device):
    """DiNTS deployed from a searched architecture code (all paths on, a mix of skip and 3x3 cells), 2-D."""
    import numpy as np
    import torch
    from monai.networks.nets import DiNTS, TopologyInstance

    arch_code = [np.ones((2, 4)), np.array([[1, 0, 1, 1], [1, 1, 0, 1]])]
    space = TopologyInstance(arch_code=arch_code, channel_mul=0.25, num_blocks=2, num_depths=2, spatial_dims=2,
                             device=device)
    model = DiNTS(dints_space=space, in_channels=1, num_classes=2, spatial_dims=2)
    return model, (torch.randn(1, 1, 32, 32, device=device),), {}


def _navit(device):
    """NaViT on two packed sequences of variable-size 2-D images (Patch n' Pack)."""
    import torch
    from monai.networks.nets import NaViT

    model = NaViT(image_size=32, patch_size=8, num_classes=2, hidden_size=16, mlp_dim=32, num_layers=1, num_heads=2,
                  spatial_dims=2)
    images = [[torch.randn(1, 32, 32, device=device), torch.randn(1, 16, 24, device=device)],
              [torch.randn(1, 24, 16, device=device)]]
    return model, (images,), {}


# Sixteenth session: more dev cases (names that hash to dev only).
CASES += [
    Case("monai", "DiNTS", _dints),
    Case("monai", "NaViT", _navit),
    Case("monai", "SEResNeXt50", _net("SEResNeXt50", spatial_dims=2, in_channels=1, num_classes=2, layers=(1, 1, 1, 1),
                                      inplanes=16, groups=4, reduction=4)),
    Case("monai", "DiffusionLoss", _ddf_loss("DiffusionLoss")),
    Case("monai", "DiceFocalLoss_sigmoid", _probabilities("DiceFocalLoss", sigmoid=True)),
    Case("monai", "SSIMLoss_uniform", _pair("SSIMLoss", spatial_dims=2, kernel_type="uniform", win_size=5)),
    _method_case("metrics.RMSEMetric", "monai.metrics.RMSEMetric", "_compute_metric", _images),
    _method_case("metrics.LabelQualityScore", "monai.metrics.LabelQualityScore", "__call__", _images,
                 include_background=True, scalar_reduction="mean"),
    _transform_call("transforms.Resize", "Resize", _channel_first_image, spatial_size=(24, 24), mode="bilinear"),
    _transform_call("transforms.ScaleIntensityRangePercentiles", "ScaleIntensityRangePercentiles",
                    _channel_first_image, lower=5, upper=95, b_min=0.0, b_max=1.0, clip=True),
    _transform_call("transforms.ThresholdIntensity", "ThresholdIntensity", _channel_first_image, threshold=0.5,
                    above=False, cval=0.0),
    _transform_call("transforms.Activations", "Activations", _channel_first_image, sigmoid=True),
    _transform_call("transforms.SobelGradients", "SobelGradients", _channel_first_image, kernel_size=3),
    _transform_call("transforms.CenterSpatialCrop", "CenterSpatialCrop", _channel_first_image, roi_size=(8, 8)),
    _transform_call("transforms.HistogramNormalize", "HistogramNormalize", _channel_first_image, num_bins=32, min=0,
                    max=1),
    _transform_call("transforms.GibbsNoise", "GibbsNoise", _channel_first_image, alpha=0.5),
    _transform_call("transforms.SavitzkyGolaySmooth", "SavitzkyGolaySmooth", _channel_first_image, window_length=5,
                    order=2),
]


def _masked_loss(device):
    import torch
    from monai.losses import DiceLoss, MaskedLoss

    pred = torch.rand(2, 1, 16, 16, device=device)
    target = (torch.rand(2, 1, 16, 16, device=device) > 0.5).float()
    mask = (torch.rand(2, 1, 16, 16, device=device) > 0.3).float()
    return MaskedLoss(DiceLoss, sigmoid=True), (pred, target, mask), {}



def _diffusion_encoder(device):
    import torch
    from monai.networks.nets.diffusion_model_unet import DiffusionModelEncoder

    model = DiffusionModelEncoder(spatial_dims=2, in_channels=1, out_channels=2, channels=(8, 8),
                                  attention_levels=(False, True), num_res_blocks=1, num_head_channels=8,
                                  norm_num_groups=4)
    return model, (torch.randn(1, 1, 64, 64, device=device), torch.randint(0, 100, (1,), device=device).long()), {}


def _apply_filter_inputs(device):
    import torch

    return (torch.randn(2, 3, 16, 16, device=device), torch.ones(3, 3, device=device) / 9), {}


def _reshape(device):
    import torch
    from monai.networks.layers import Reshape

    return Reshape(2, 8, 8), (torch.randn(2, 128, device=device),), {}


def _skip_connection(device):
    import torch
    from monai.networks.layers import SkipConnection

    return SkipConnection(torch.nn.Conv2d(2, 2, 3, padding=1), mode="cat"), (torch.randn(2, 2, 8, 8, device=device),), {}


def _normalize_transform_inputs(device):
    return ((16, 16),), {"device": device, "align_corners": False}


def _atss(device):
    import torch
    from monai.apps.detection.utils.ATSS_matcher import ATSSMatcher

    boxes, _ = _boxes(device)
    anchors = torch.cat([torch.rand(32, 2, device=device) * 20, torch.rand(32, 2, device=device) * 20 + 25], dim=1)
    return ATSSMatcher(num_candidates=4, center_in_gt=False), (boxes[:3], anchors, [16, 16], 1), {}



def _froc_inputs(device):
    import numpy as np

    return (np.array([0.2, 0.5, 1.0, 3.0, 6.0]), np.array([0.1, 0.3, 0.5, 0.7, 0.9])), {}


# Eighteenth session: more dev cases (names that hash to dev only).
CASES += [
    Case("monai", "BasicUNet_3d", _net("BasicUNet", shape=(1, 1, 32, 32, 32), spatial_dims=3, in_channels=1,
                                       out_channels=2, features=(4, 4, 8, 8, 16, 4))),
    Case("monai", "DiffusionModelEncoder", _diffusion_encoder),
    Case("monai", "MaskedLoss", _masked_loss),
    Case("monai", "TverskyLoss_softmax", _loss("TverskyLoss", softmax=True, to_onehot_y=True, alpha=0.3, beta=0.7)),
    function_case("monai", "monai.metrics.compute_froc_score", _froc_inputs),
    function_case("monai", "monai.networks.layers.apply_filter", _apply_filter_inputs, name="layers.apply_filter"),
    Case("monai", "layers.Reshape", _reshape),
    Case("monai", "layers.SkipConnection", _skip_connection),
    function_case("monai", "monai.networks.utils.normalize_transform", _normalize_transform_inputs),
    function_case("monai", "monai.data.box_utils.box_pair_giou", _box_pairs),
    Case("monai", "apps.detection.ATSSMatcher", _atss),
]


def _unification(*shapes, **kwargs):
    """Inputs of a `monai.transforms.utils_pytorch_numpy_unification` function: random tensors of
    `shapes`, then `kwargs` (values as given)."""

    def inputs(device):
        import torch

        return tuple(torch.rand(*s, device=device) for s in shapes), dict(kwargs)

    return inputs


def _where_inputs(device):
    import torch

    x = torch.rand(2, 8, 8, device=device)
    return (x > 0.5, x, torch.zeros_like(x)), {}


def _mode_inputs(device):
    import torch

    return (torch.randint(0, 4, (2, 16), device=device).float(),), {"dim": -1}


def _extreme_points_input(device):
    import torch

    img = torch.zeros(1, 16, 16, device=device)
    img[0, 4:10, 3:12] = 1
    return (img,), {}


def _meshgrid_inputs(device):
    import torch

    return (torch.arange(4, device=device), torch.arange(5, device=device)), {}


# Eighteenth session, second batch (names that hash to dev only).
CASES += [
    function_case("monai", "monai.transforms.utils_pytorch_numpy_unification.percentile",
                  _unification((2, 32), q=90.0, dim=1)),
    function_case("monai", "monai.transforms.utils_pytorch_numpy_unification.where", _where_inputs),
    function_case("monai", "monai.transforms.utils_pytorch_numpy_unification.mode", _mode_inputs),
    function_case("monai", "monai.transforms.utils_pytorch_numpy_unification.maximum",
                  _unification((2, 8), (2, 8))),
    function_case("monai", "monai.transforms.utils_pytorch_numpy_unification.moveaxis",
                  _unification((2, 3, 4), src=0, dst=-1)),
    function_case("monai", "monai.transforms.utils.get_extreme_points", _extreme_points_input),
    function_case("monai", "monai.networks.utils.meshgrid_ij", _meshgrid_inputs),
    Case("monai", "losses.DiceLoss_batch", _loss("DiceLoss", softmax=True, to_onehot_y=True, batch=True)),
    Case("monai", "losses.FocalLoss_softmax", _loss("FocalLoss", use_softmax=True, to_onehot_y=True, gamma=2.0)),
    Case("monai", "losses.JukeboxLoss", _pair("JukeboxLoss", spatial_dims=2)),
]


def _unification_lists(n: int, shape: tuple, **kwargs):
    """Inputs of a unification function taking a sequence of `n` random tensors of `shape`."""

    def inputs(device):
        import torch

        return ([torch.rand(*shape, device=device) for _ in range(n)],), dict(kwargs)

    return inputs


def _unravel_inputs(device):
    import torch

    return (torch.tensor([3, 7, 11], device=device), (4, 4)), {}


def _in1d_inputs(device):
    import torch

    return (torch.randint(0, 6, (12,), device=device), torch.tensor([1, 3], device=device)), {}


def _searchsorted_inputs(device):
    import torch

    return (torch.sort(torch.rand(10, device=device)).values, torch.rand(4, device=device)), {}


def _unique_inputs(device):
    return _in1d_inputs(device)[0][:1], {}


_UNIFICATION = "monai.transforms.utils_pytorch_numpy_unification"
# Twentieth session (names that hash to dev only; each called eagerly before any scan).
CASES += [
    function_case("monai", f"{_UNIFICATION}.in1d", _in1d_inputs),
    function_case("monai", f"{_UNIFICATION}.floor_divide", _unification((2, 8), b=3)),
    function_case("monai", f"{_UNIFICATION}.unravel_indices", _unravel_inputs),
    function_case("monai", f"{_UNIFICATION}.ravel", _unification((2, 8))),
    function_case("monai", f"{_UNIFICATION}.any_np_pt", _unification((2, 8), axis=1)),
    function_case("monai", f"{_UNIFICATION}.concatenate", _unification_lists(3, (2, 4), axis=1)),
    function_case("monai", f"{_UNIFICATION}.cumsum", _unification((2, 8), axis=1)),
    function_case("monai", f"{_UNIFICATION}.isfinite", _unification((2, 8))),
    function_case("monai", f"{_UNIFICATION}.searchsorted", _searchsorted_inputs),
    function_case("monai", f"{_UNIFICATION}.isnan", _unification((2, 8))),
    function_case("monai", f"{_UNIFICATION}.ascontiguousarray", _unification((2, 8))),
    function_case("monai", f"{_UNIFICATION}.stack", _unification_lists(3, (2, 4), dim=0)),
    function_case("monai", f"{_UNIFICATION}.unique", _unique_inputs),
    function_case("monai", f"{_UNIFICATION}.max", _unification((2, 8), dim=1)),
    function_case("monai", f"{_UNIFICATION}.mean", _unification((2, 8), dim=1)),
    function_case("monai", f"{_UNIFICATION}.std", _unification((2, 8), dim=1)),
]
