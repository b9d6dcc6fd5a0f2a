"""MONAI networks for the corpus: 2-D (a few 3-D), tiny channel counts, 32 x 32 inputs."""

from __future__ import annotations

from bench.corpus import Case


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
