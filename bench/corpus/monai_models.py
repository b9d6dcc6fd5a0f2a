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
]
