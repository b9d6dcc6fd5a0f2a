"""diffusers models and scheduler steps for the corpus (tiny configs, as in diffusers' own tests)."""

from __future__ import annotations

from bench.corpus import Case, function_case


def _model(cls: str, inputs, **config):
    def factory(device):
        import diffusers

        return getattr(diffusers, cls)(**config), *inputs(device)

    return factory


def _image(channels: int = 3, size: int = 16, timestep: bool = True, **extra):
    def inputs(device):
        import torch

        sample = torch.randn(1, channels, size, size, device=device)
        args = (sample, torch.tensor([10], device=device)) if timestep else (sample,)
        return args, {k: v(device) for k, v in extra.items()}

    return inputs


def _text_states(tokens: int = 4, dim: int = 32):
    def make(device):
        import torch

        return torch.randn(1, tokens, dim, device=device)

    return make


def _labels(device):
    import torch

    return torch.tensor([1], device=device)


_UNET2D = dict(sample_size=16, in_channels=3, out_channels=3, layers_per_block=1, block_out_channels=(16, 32),
               norm_num_groups=8, down_block_types=("DownBlock2D", "AttnDownBlock2D"),
               up_block_types=("AttnUpBlock2D", "UpBlock2D"), attention_head_dim=8)
_UNET2D_COND = dict(sample_size=16, in_channels=4, out_channels=4, layers_per_block=1, block_out_channels=(16, 32),
                    norm_num_groups=8, cross_attention_dim=32, attention_head_dim=8,
                    down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
                    up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"))
_VAE = dict(in_channels=3, out_channels=3, block_out_channels=(16, 32), layers_per_block=1, latent_channels=4,
            norm_num_groups=8, down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
            up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"))


def _vae_decode(device):
    """AutoencoderKL.decode on a latent (the pipeline's last step), compiled as the bound method."""
    import torch
    from diffusers import AutoencoderKL

    vae = AutoencoderKL(**_VAE)
    return vae.decoder, (torch.randn(1, 4, 8, 8, device=device),), {}


def _controlnet(device):
    import torch
    from diffusers import ControlNetModel

    model = ControlNetModel(in_channels=4, block_out_channels=(16, 32), layers_per_block=1, norm_num_groups=8,
                            cross_attention_dim=32, attention_head_dim=8, conditioning_embedding_out_channels=(8, 16),
                            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"))
    sample = torch.randn(1, 4, 16, 16, device=device)
    cond = torch.randn(1, 3, 32, 32, device=device)
    return model, (sample, torch.tensor([10], device=device), torch.randn(1, 4, 32, device=device), cond), {}


def _sd3(device):
    import torch
    from diffusers import SD3Transformer2DModel

    model = SD3Transformer2DModel(sample_size=16, patch_size=2, in_channels=4, num_layers=2, attention_head_dim=8,
                                  num_attention_heads=2, joint_attention_dim=32, caption_projection_dim=16,
                                  pooled_projection_dim=16, out_channels=4, pos_embed_max_size=32)
    return model, (torch.randn(1, 4, 16, 16, device=device),), {
        "encoder_hidden_states": torch.randn(1, 4, 32, device=device),
        "pooled_projections": torch.randn(1, 16, device=device), "timestep": torch.tensor([10], device=device)}


def _flux(device):
    import torch
    from diffusers import FluxTransformer2DModel

    model = FluxTransformer2DModel(patch_size=1, in_channels=4, num_layers=1, num_single_layers=1,
                                   attention_head_dim=16, num_attention_heads=2, joint_attention_dim=32,
                                   pooled_projection_dim=16, axes_dims_rope=[4, 4, 8])
    return model, (torch.randn(1, 16, 4, device=device),), {
        "encoder_hidden_states": torch.randn(1, 4, 32, device=device),
        "pooled_projections": torch.randn(1, 16, device=device), "timestep": torch.tensor([1.0], device=device),
        "img_ids": torch.zeros(16, 3, device=device), "txt_ids": torch.zeros(4, 3, device=device)}


def _transformer2d(device):
    import torch
    from diffusers import Transformer2DModel

    model = Transformer2DModel(num_attention_heads=2, attention_head_dim=8, in_channels=8, num_layers=1,
                               norm_num_groups=4, cross_attention_dim=16)
    return model, (torch.randn(1, 8, 8, 8, device=device),), {
        "encoder_hidden_states": torch.randn(1, 4, 16, device=device)}


def _prior(device):
    import torch
    from diffusers import PriorTransformer

    model = PriorTransformer(num_attention_heads=2, attention_head_dim=4, num_layers=2, embedding_dim=8,
                             num_embeddings=7, additional_embeddings=4)
    return model, (torch.randn(1, 8, device=device), torch.tensor([10], device=device),
                   torch.randn(1, 8, device=device)), {"encoder_hidden_states": torch.randn(1, 7, 8, device=device)}


def _unet_sdxl(device):
    import torch
    from diffusers import UNet2DConditionModel

    model = UNet2DConditionModel(**{**_UNET2D_COND, "addition_embed_type": "text_time",
                                    "addition_time_embed_dim": 8, "projection_class_embeddings_input_dim": 80,
                                    "transformer_layers_per_block": (1, 1)})
    cond = {"text_embeds": torch.randn(1, 32, device=device), "time_ids": torch.randn(1, 6, device=device)}
    return model, (torch.randn(1, 4, 16, 16, device=device), torch.tensor([10], device=device),
                   torch.randn(1, 4, 32, device=device)), {"added_cond_kwargs": cond}


def _block(path: str, inputs, **config):
    """A building block (``diffusers.models.<module>.<Class>``) on tensor inputs, as a module case."""

    def factory(device):
        import importlib

        module, _, cls = path.rpartition(".")
        return getattr(importlib.import_module(module), cls)(**config), *inputs(device)

    return factory


def _tensors(*shapes, **named):
    """Inputs: random tensors of ``shapes`` (positional) and ``named`` (keyword) on the device."""

    def inputs(device):
        import torch

        return tuple(torch.randn(*s, device=device) for s in shapes), {
            k: torch.randn(*s, device=device) for k, s in named.items()}

    return inputs


def _timesteps_input(device):
    import torch

    return (torch.tensor([1.0, 500.0], device=device),), {}


def _pixart(device):
    import torch
    from diffusers import PixArtTransformer2DModel

    model = PixArtTransformer2DModel(sample_size=8, num_layers=1, patch_size=2, attention_head_dim=8,
                                     num_attention_heads=2, caption_channels=32, in_channels=4,
                                     cross_attention_dim=16, out_channels=8, attention_bias=True,
                                     activation_fn="gelu-approximate", num_embeds_ada_norm=1000,
                                     norm_type="ada_norm_single", norm_elementwise_affine=False, norm_eps=1e-6)
    return model, (torch.randn(1, 4, 8, 8, device=device),), {
        "encoder_hidden_states": torch.randn(1, 8, 32, device=device), "timestep": torch.tensor([10], device=device),
        "added_cond_kwargs": {"aspect_ratio": None, "resolution": None}}


def _sana(device):
    import torch
    from diffusers import SanaTransformer2DModel

    model = SanaTransformer2DModel(patch_size=1, in_channels=4, out_channels=4, num_layers=1, attention_head_dim=4,
                                   num_attention_heads=2, num_cross_attention_heads=2, cross_attention_head_dim=4,
                                   cross_attention_dim=8, caption_channels=8, sample_size=8)
    return model, (torch.randn(1, 4, 8, 8, device=device),), {
        "encoder_hidden_states": torch.randn(1, 8, 8, device=device), "timestep": torch.tensor([10], device=device)}


def _auraflow(device):
    import torch
    from diffusers import AuraFlowTransformer2DModel

    model = AuraFlowTransformer2DModel(sample_size=16, patch_size=2, in_channels=4, num_mmdit_layers=1,
                                       num_single_dit_layers=1, attention_head_dim=8, num_attention_heads=2,
                                       caption_projection_dim=16, joint_attention_dim=32, out_channels=4,
                                       pos_embed_max_size=64)
    return model, (torch.randn(1, 4, 16, 16, device=device),), {
        "encoder_hidden_states": torch.randn(1, 8, 32, device=device), "timestep": torch.tensor([10], device=device)}


def _cogvideox(device):
    import torch
    from diffusers import CogVideoXTransformer3DModel

    model = CogVideoXTransformer3DModel(num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4,
                                        time_embed_dim=2, text_embed_dim=8, num_layers=1, sample_width=8,
                                        sample_height=8, sample_frames=8, patch_size=2, temporal_compression_ratio=4,
                                        max_text_seq_length=8)
    return model, (torch.randn(1, 1, 4, 8, 8, device=device),), {
        "encoder_hidden_states": torch.randn(1, 8, 8, device=device), "timestep": torch.tensor([10], device=device)}


def _wan(device):
    import torch
    from diffusers import WanTransformer3DModel

    model = WanTransformer3DModel(patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=12, in_channels=4,
                                  out_channels=4, text_dim=16, freq_dim=32, ffn_dim=32, num_layers=1,
                                  cross_attn_norm=True, qk_norm="rms_norm_across_heads", rope_max_seq_len=32)
    return model, (torch.randn(1, 4, 2, 8, 8, device=device),), {
        "encoder_hidden_states": torch.randn(1, 8, 16, device=device), "timestep": torch.tensor([10], device=device)}


def _unet3d(device):
    import torch
    from diffusers import UNet3DConditionModel

    model = UNet3DConditionModel(block_out_channels=(8, 16), norm_num_groups=4, in_channels=4, out_channels=4,
                                 down_block_types=("CrossAttnDownBlock3D", "DownBlock3D"),
                                 up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"), cross_attention_dim=8,
                                 attention_head_dim=4, layers_per_block=1, sample_size=16)
    return model, (torch.randn(1, 4, 2, 16, 16, device=device), torch.tensor([10], device=device),
                   torch.randn(1, 4, 8, device=device)), {}


def _resnet_block(device):
    import torch
    from diffusers.models.resnet import ResnetBlock2D

    block = ResnetBlock2D(in_channels=8, out_channels=16, temb_channels=32, groups=4)
    return block, (torch.randn(1, 8, 8, 8, device=device), torch.randn(1, 32, device=device)), {}


def _scheduler_step(cls: str, **config):
    """A scheduler's ``step`` on a random model output, after ``set_timesteps(10)``: the
    denoising loop's per-step call, compiled as a bound method."""

    def factory(device):
        import torch
        import diffusers

        scheduler = getattr(diffusers, cls)(num_train_timesteps=100, **config)
        scheduler.set_timesteps(10)
        sample = torch.randn(1, 4, 8, 8, device=device)
        out = torch.randn(1, 4, 8, 8, device=device)
        return scheduler.step, (out, scheduler.timesteps[0], sample), {"return_dict": False}

    return factory


def _sched(cls: str, module: str, **config) -> Case:
    return Case("diffusers", f"{cls}.step", _scheduler_step(cls, **config),
                target=f"diffusers.schedulers.{module}.{cls}.step", modes=("call",))


CASES: list[Case] = [
    Case("diffusers", "UNet2DModel", _model("UNet2DModel", _image(), **_UNET2D)),
    Case("diffusers", "UNet2DConditionModel", _model("UNet2DConditionModel",
                                                     _image(4, encoder_hidden_states=_text_states()), **_UNET2D_COND)),
    Case("diffusers", "AutoencoderKL", _model("AutoencoderKL", _image(timestep=False, size=32), **_VAE)),
    Case("diffusers", "VQModel", _model("VQModel", _image(timestep=False, size=32), in_channels=3, out_channels=3,
                                        block_out_channels=(16, 32), layers_per_block=1, latent_channels=4,
                                        norm_num_groups=8, num_vq_embeddings=16, vq_embed_dim=4,
                                        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
                                        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"))),
    Case("diffusers", "AutoencoderTiny", _model("AutoencoderTiny", _image(timestep=False, size=32),
                                                encoder_block_out_channels=(8, 8), decoder_block_out_channels=(8, 8),
                                                num_encoder_blocks=(1, 1), num_decoder_blocks=(1, 1),
                                                latent_channels=4)),
    Case("diffusers", "DiTTransformer2DModel", _model(
        "DiTTransformer2DModel", _image(4, class_labels=_labels), in_channels=4, out_channels=8,
        num_attention_heads=2, attention_head_dim=8, num_layers=2, sample_size=16, patch_size=2,
        norm_num_groups=8, num_embeds_ada_norm=10)),
    Case("diffusers", "ControlNetModel", _controlnet),
    Case("diffusers", "UNet1DModel", _model("UNet1DModel", lambda d: ((__import__("torch").randn(1, 2, 64, device=d),
                                                                         __import__("torch").tensor([10], device=d)), {}),
                                            in_channels=2, out_channels=2, block_out_channels=(32, 32, 64),
                                            down_block_types=("DownBlock1D", "DownBlock1D", "AttnDownBlock1D"),
                                            up_block_types=("AttnUpBlock1D", "UpBlock1D", "UpBlock1DNoSkip"),
                                            mid_block_type="UNetMidBlock1D", extra_in_channels=0,
                                            sample_size=64, layers_per_block=1)),
    Case("diffusers", "SD3Transformer2DModel", _sd3),
    Case("diffusers", "FluxTransformer2DModel", _flux),
    Case("diffusers", "Transformer2DModel", _transformer2d),
    Case("diffusers", "PriorTransformer", _prior),
    Case("diffusers", "UNet2DConditionModel_text_time", _unet_sdxl),
    Case("diffusers", "UNet2DModel_class_cond", _model("UNet2DModel", _image(class_labels=_labels),
                                                       **{**_UNET2D, "num_class_embeds": 4})),
    Case("diffusers", "AutoencoderKL_decoder", _vae_decode),
    _sched("DDPMScheduler", "scheduling_ddpm"),
    _sched("DDIMScheduler", "scheduling_ddim"),
    _sched("EulerDiscreteScheduler", "scheduling_euler_discrete"),
    _sched("DPMSolverMultistepScheduler", "scheduling_dpmsolver_multistep"),
    _sched("PNDMScheduler", "scheduling_pndm"),
    _sched("HeunDiscreteScheduler", "scheduling_heun_discrete"),
    _sched("UniPCMultistepScheduler", "scheduling_unipc_multistep"),
    Case("diffusers", "PixArtTransformer2DModel", _pixart),
    Case("diffusers", "SanaTransformer2DModel", _sana),
    Case("diffusers", "AuraFlowTransformer2DModel", _auraflow),
    Case("diffusers", "CogVideoXTransformer3DModel", _cogvideox),
    Case("diffusers", "WanTransformer3DModel", _wan),
    Case("diffusers", "UNet3DConditionModel", _unet3d),
    Case("diffusers", "T2IAdapter", _model("T2IAdapter", _image(timestep=False, size=32), in_channels=3,
                                           channels=(16, 32), num_res_blocks=1, downscale_factor=4,
                                           adapter_type="full_adapter")),
    Case("diffusers", "embeddings.TimestepEmbedding", _block("diffusers.models.embeddings.TimestepEmbedding",
                                                             _tensors((2, 16)), in_channels=16, time_embed_dim=32)),
    Case("diffusers", "embeddings.Timesteps", _block("diffusers.models.embeddings.Timesteps", _timesteps_input,
                                                     num_channels=16, flip_sin_to_cos=True, downscale_freq_shift=0)),
    Case("diffusers", "attention_processor.Attention", _block("diffusers.models.attention_processor.Attention",
                                                              _tensors((1, 6, 16)), query_dim=16, heads=2,
                                                              dim_head=8)),
    Case("diffusers", "attention.BasicTransformerBlock", _block(
        "diffusers.models.attention.BasicTransformerBlock", _tensors((1, 6, 16), encoder_hidden_states=(1, 4, 16)),
        dim=16, num_attention_heads=2, attention_head_dim=8, cross_attention_dim=16)),
    Case("diffusers", "resnet.ResnetBlock2D", _resnet_block),
    Case("diffusers", "upsampling.Upsample2D", _block("diffusers.models.upsampling.Upsample2D", _tensors((1, 8, 8, 8)),
                                                      channels=8, use_conv=True)),
    Case("diffusers", "downsampling.Downsample2D", _block("diffusers.models.downsampling.Downsample2D",
                                                          _tensors((1, 8, 8, 8)), channels=8, use_conv=True)),
    _sched("EulerAncestralDiscreteScheduler", "scheduling_euler_ancestral_discrete"),
    _sched("DEISMultistepScheduler", "scheduling_deis_multistep"),
    _sched("KDPM2DiscreteScheduler", "scheduling_k_dpm_2_discrete"),
    _sched("DPMSolverSinglestepScheduler", "scheduling_dpmsolver_singlestep"),
    _sched("FlowMatchEulerDiscreteScheduler", "scheduling_flow_match_euler_discrete"),
    _sched("LCMScheduler", "scheduling_lcm"),
    _sched("TCDScheduler", "scheduling_tcd"),
    _sched("SASolverScheduler", "scheduling_sasolver"),
    _sched("IPNDMScheduler", "scheduling_ipndm"),
]


def _scheduler_call(cls: str, method: str, args, **config):
    """A scheduler's ``method`` (``add_noise``, ``scale_model_input``, ``step``) after
    ``set_timesteps(10)``, on ``args(scheduler, device)``, compiled as a bound method."""

    def factory(device):
        import diffusers

        scheduler = getattr(diffusers, cls)(**config)
        scheduler.set_timesteps(10)
        positional, kwargs = args(scheduler, device)
        return getattr(scheduler, method), positional, kwargs

    return factory


def _noise_args(scheduler, device):
    import torch

    sample = torch.randn(2, 4, 8, 8, device=device)
    return (sample, torch.randn_like(sample), scheduler.timesteps[:2].clone()), {}


def _scale_args(scheduler, device):
    import torch

    return (torch.randn(1, 4, 8, 8, device=device), scheduler.timesteps[0]), {}


def _step_args(scheduler, device):
    import torch

    sample = torch.randn(1, 4, 8, 8, device=device)
    return (torch.randn_like(sample), scheduler.timesteps[0], sample), {"return_dict": False}


def _sched_call(cls: str, module: str, method: str, args, name: str = "", **config) -> Case:
    return Case("diffusers", name or f"{cls}.{method}", _scheduler_call(cls, method, args, **config),
                target=f"diffusers.schedulers.{module}.{cls}.{method}", modes=("call",))


def _hunyuan_dit(device):
    import torch
    from diffusers import HunyuanDiT2DModel

    model = HunyuanDiT2DModel(sample_size=8, patch_size=2, in_channels=4, num_layers=2, attention_head_dim=8,
                              num_attention_heads=2, cross_attention_dim=16, cross_attention_dim_t5=32,
                              pooled_projection_dim=16, hidden_size=16, text_len=4, text_len_t5=4,
                              use_style_cond_and_image_meta_size=True)
    return model, (torch.randn(1, 4, 8, 8, device=device), torch.tensor([10.0], device=device)), {
        "encoder_hidden_states": torch.randn(1, 4, 16, device=device),
        "text_embedding_mask": torch.ones(1, 4, device=device),
        "encoder_hidden_states_t5": torch.randn(1, 4, 32, device=device),
        "text_embedding_mask_t5": torch.ones(1, 4, device=device),
        "image_meta_size": torch.tensor([[8.0, 8.0, 8.0, 8.0, 0.0, 0.0]], device=device),
        "style": torch.zeros(1, dtype=torch.long, device=device),
        "image_rotary_emb": _hunyuan_rope(device)}


def _hunyuan_rope(device):
    from diffusers.models.embeddings import get_2d_rotary_pos_embed

    cos, sin = get_2d_rotary_pos_embed(8, ((0, 0), (4, 4)), (4, 4))
    return cos.to(device), sin.to(device)


def _ltx(device):
    import torch
    from diffusers import LTXVideoTransformer3DModel

    model = LTXVideoTransformer3DModel(in_channels=8, out_channels=8, patch_size=1, patch_size_t=1,
                                       num_attention_heads=2, attention_head_dim=8, cross_attention_dim=16,
                                       num_layers=1, caption_channels=16)
    return model, (torch.randn(1, 2 * 4 * 4, 8, device=device),), {
        "encoder_hidden_states": torch.randn(1, 4, 16, device=device), "timestep": torch.tensor([10], device=device),
        "encoder_attention_mask": torch.ones(1, 4, device=device), "num_frames": 2, "height": 4, "width": 4}


def _sd3_controlnet(device):
    import torch
    from diffusers import SD3ControlNetModel

    model = SD3ControlNetModel(sample_size=16, patch_size=2, in_channels=4, num_layers=1, attention_head_dim=8,
                               num_attention_heads=2, joint_attention_dim=32, caption_projection_dim=16,
                               pooled_projection_dim=16, out_channels=4, pos_embed_max_size=32)
    return model, (torch.randn(1, 4, 16, 16, device=device),), {
        "controlnet_cond": torch.randn(1, 4, 16, 16, device=device),
        "encoder_hidden_states": torch.randn(1, 4, 32, device=device),
        "pooled_projections": torch.randn(1, 16, device=device), "timestep": torch.tensor([10], device=device)}


def _uvit(device):
    import torch
    from diffusers import UVit2DModel

    model = UVit2DModel(hidden_size=16, use_bias=False, hidden_dropout=0.0, cond_embed_dim=16, micro_cond_encode_dim=2,
                        micro_cond_embed_dim=10, encoder_hidden_size=16, vocab_size=32, codebook_size=32,
                        in_channels=8, block_out_channels=8, num_res_blocks=1, downsample=True, upsample=True,
                        block_num_heads=1, num_hidden_layers=1, num_attention_heads=1, attention_dropout=0.0,
                        intermediate_size=16, layer_norm_eps=1e-6, ln_elementwise_affine=True, sample_size=4)
    return model, (torch.randint(0, 32, (1, 4, 4), device=device), torch.randn(1, 4, 16, device=device),
                   torch.randn(1, 16, device=device), torch.tensor([[4, 4, 0, 0, 6]], device=device)), {}


def _unet_skip(device):
    """NCSN++-style UNet2DModel: skip blocks and Fourier time embedding (score-SDE checkpoints)."""
    import torch
    from diffusers import UNet2DModel

    model = UNet2DModel(sample_size=16, in_channels=3, out_channels=3, layers_per_block=1,
                        block_out_channels=(32, 64), attention_head_dim=8, time_embedding_type="fourier", down_block_types=("SkipDownBlock2D", "AttnSkipDownBlock2D"),
                        up_block_types=("AttnSkipUpBlock2D", "SkipUpBlock2D"))
    return model, (torch.randn(1, 3, 16, 16, device=device), torch.tensor([0.5], device=device)), {}


def _unet_simple_cross(device):
    """UnCLIP-style UNet2DConditionModel: ResNet up/down-sampling and simple cross-attention blocks."""
    import torch
    from diffusers import UNet2DConditionModel

    model = UNet2DConditionModel(**{**_UNET2D_COND, "down_block_types": ("ResnetDownsampleBlock2D",
                                                                         "SimpleCrossAttnDownBlock2D"),
                                    "up_block_types": ("SimpleCrossAttnUpBlock2D", "ResnetUpsampleBlock2D"),
                                    "mid_block_type": "UNetMidBlock2DSimpleCrossAttn"})
    return model, (torch.randn(1, 4, 16, 16, device=device), torch.tensor([10], device=device),
                   torch.randn(1, 4, 32, device=device)), {}


def _joint_block(device):
    import torch
    from diffusers.models.attention import JointTransformerBlock

    block = JointTransformerBlock(dim=16, num_attention_heads=2, attention_head_dim=8, context_pre_only=False)
    return block, (torch.randn(1, 6, 16, device=device), torch.randn(1, 4, 16, device=device),
                   torch.randn(1, 16, device=device)), {}


def _rotary_inputs(device):
    import torch

    x = torch.randn(1, 2, 6, 8, device=device)
    return (x, (torch.randn(6, 8, device=device), torch.randn(6, 8, device=device))), {}


def _timestep_inputs(device):
    import torch

    return (torch.tensor([1, 500], device=device), 32), {}


def _cross_attn_down(device):
    import torch
    from diffusers.models.unets.unet_2d_blocks import CrossAttnDownBlock2D

    block = CrossAttnDownBlock2D(in_channels=16, out_channels=16, temb_channels=32, num_layers=1, resnet_groups=8,
                                 cross_attention_dim=16, num_attention_heads=2)
    return block, (torch.randn(1, 16, 8, 8, device=device), torch.randn(1, 32, device=device),
                   torch.randn(1, 4, 16, device=device)), {}


CASES += [
    _sched_call("DDPMScheduler", "scheduling_ddpm", "add_noise", _noise_args, num_train_timesteps=100),
    _sched_call("EulerDiscreteScheduler", "scheduling_euler_discrete", "add_noise", _noise_args,
                num_train_timesteps=100),
    _sched_call("EulerDiscreteScheduler", "scheduling_euler_discrete", "scale_model_input", _scale_args,
                num_train_timesteps=100),
    _sched_call("HeunDiscreteScheduler", "scheduling_heun_discrete", "scale_model_input", _scale_args,
                num_train_timesteps=100),
    _sched_call("UniPCMultistepScheduler", "scheduling_unipc_multistep", "step", _step_args,
                name="UniPCMultistepScheduler_bh1.step", num_train_timesteps=100, solver_type="bh1"),
    _sched_call("EDMEulerScheduler", "scheduling_edm_euler", "step", _step_args),
    _sched_call("EDMDPMSolverMultistepScheduler", "scheduling_edm_dpmsolver_multistep", "step", _step_args),
    _sched_call("CMStochasticIterativeScheduler", "scheduling_consistency_models", "step", _step_args),
    _sched_call("KDPM2AncestralDiscreteScheduler", "scheduling_k_dpm_2_ancestral_discrete", "step", _step_args,
                num_train_timesteps=100),
    _sched_call("FlowMatchHeunDiscreteScheduler", "scheduling_flow_match_heun_discrete", "step", _step_args),
    _sched_call("DDIMInverseScheduler", "scheduling_ddim_inverse", "step", _step_args, num_train_timesteps=100),
    _sched_call("DPMSolverMultistepScheduler", "scheduling_dpmsolver_multistep", "step", _step_args,
                name="DPMSolverMultistepScheduler_sde.step", num_train_timesteps=100,
                algorithm_type="sde-dpmsolver++"),
    _sched_call("EulerDiscreteScheduler", "scheduling_euler_discrete", "step", _step_args,
                name="EulerDiscreteScheduler_karras.step", num_train_timesteps=100, use_karras_sigmas=True),
    Case("diffusers", "HunyuanDiT2DModel", _hunyuan_dit),
    Case("diffusers", "LTXVideoTransformer3DModel", _ltx),
    Case("diffusers", "SD3ControlNetModel", _sd3_controlnet),
    Case("diffusers", "UVit2DModel", _uvit),
    Case("diffusers", "UNet2DModel_skip_fourier", _unet_skip),
    Case("diffusers", "UNet2DConditionModel_simple_cross", _unet_simple_cross),
    Case("diffusers", "attention.JointTransformerBlock", _joint_block),
    Case("diffusers", "attention.FeedForward", _block("diffusers.models.attention.FeedForward",
                                                      _tensors((1, 6, 16)), dim=16, mult=2)),
    Case("diffusers", "normalization.AdaLayerNormZero", _block(
        "diffusers.models.normalization.AdaLayerNormZero", _tensors((1, 6, 16), emb=(1, 16)), embedding_dim=16)),
    Case("diffusers", "normalization.RMSNorm", _block("diffusers.models.normalization.RMSNorm", _tensors((1, 6, 16)),
                                                      dim=16, eps=1e-6)),
    Case("diffusers", "embeddings.PatchEmbed", _block("diffusers.models.embeddings.PatchEmbed",
                                                      _tensors((1, 4, 16, 16)), height=16, width=16, patch_size=2,
                                                      in_channels=4, embed_dim=16)),
    Case("diffusers", "unet_2d_blocks.CrossAttnDownBlock2D", _cross_attn_down),
    function_case("diffusers", "diffusers.models.embeddings.get_timestep_embedding", _timestep_inputs),
    function_case("diffusers", "diffusers.models.embeddings.apply_rotary_emb", _rotary_inputs),
]


def _asymmetric_vae(device):
    import torch
    from diffusers import AsymmetricAutoencoderKL

    model = AsymmetricAutoencoderKL(in_channels=3, out_channels=3, down_block_out_channels=(16, 32),
                                    layers_per_down_block=1, up_block_out_channels=(16, 32), layers_per_up_block=1,
                                    latent_channels=4, norm_num_groups=8,
                                    down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
                                    up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"))
    return model, (torch.randn(1, 3, 32, 32, device=device),), {}


CASES += [
    _sched_call("DPMSolverMultistepScheduler", "scheduling_dpmsolver_multistep", "add_noise", _noise_args,
                num_train_timesteps=100),
    _sched_call("EulerAncestralDiscreteScheduler", "scheduling_euler_ancestral_discrete", "add_noise", _noise_args,
                num_train_timesteps=100),
    _sched_call("PNDMScheduler", "scheduling_pndm", "add_noise", _noise_args, num_train_timesteps=100),
    _sched_call("LCMScheduler", "scheduling_lcm", "add_noise", _noise_args, num_train_timesteps=100),
    _sched_call("KDPM2DiscreteScheduler", "scheduling_k_dpm_2_discrete", "scale_model_input", _scale_args,
                num_train_timesteps=100),
    _sched_call("EulerAncestralDiscreteScheduler", "scheduling_euler_ancestral_discrete", "scale_model_input",
                _scale_args, num_train_timesteps=100),
    _sched_call("CogVideoXDDIMScheduler", "scheduling_ddim_cogvideox", "step", _step_args, num_train_timesteps=100),
    _sched_call("UnCLIPScheduler", "scheduling_unclip", "step", _step_args, num_train_timesteps=100),
    _sched_call("DDIMScheduler", "scheduling_ddim", "step", _step_args, name="DDIMScheduler_v_prediction.step",
                num_train_timesteps=100, prediction_type="v_prediction", rescale_betas_zero_snr=True,
                timestep_spacing="trailing"),
    _sched_call("DDPMScheduler", "scheduling_ddpm", "step", _step_args, name="DDPMScheduler_thresholding.step",
                num_train_timesteps=100, thresholding=True, variance_type="fixed_small_log"),
    Case("diffusers", "AsymmetricAutoencoderKL", _asymmetric_vae),
]


def _cogvideox_dpm_step_args(scheduler, device):
    import torch

    sample = torch.randn(1, 4, 8, 8, device=device)
    return (torch.randn_like(sample), None, scheduler.timesteps[1], scheduler.timesteps[0], sample), {
        "return_dict": False}


# Ninth session: more scheduler methods. Only names whose hash puts them in the dev half were
# added, so that the held-out half stays the set measured before.
CASES += [
    _sched_call("DPMSolverMultistepInverseScheduler", "scheduling_dpmsolver_multistep_inverse", "step", _step_args,
                num_train_timesteps=100),
    _sched_call("FlowMatchLCMScheduler", "scheduling_flow_match_lcm", "step", _step_args),
    _sched_call("MiniMaxH3Scheduler", "scheduling_minimax_h3", "step", _step_args),
    _sched_call("CogVideoXDPMScheduler", "scheduling_dpm_cogvideox", "step", _cogvideox_dpm_step_args,
                num_train_timesteps=100),
    _sched_call("DDIMScheduler", "scheduling_ddim", "scale_model_input", _scale_args, num_train_timesteps=100),
    _sched_call("DPMSolverMultistepScheduler", "scheduling_dpmsolver_multistep", "scale_model_input", _scale_args,
                num_train_timesteps=100),
    _sched_call("PNDMScheduler", "scheduling_pndm", "scale_model_input", _scale_args, num_train_timesteps=100),
    _sched_call("CMStochasticIterativeScheduler", "scheduling_consistency_models", "scale_model_input", _scale_args,
                num_train_timesteps=100),
    _sched_call("EDMDPMSolverMultistepScheduler", "scheduling_edm_dpmsolver_multistep", "scale_model_input",
                _scale_args, num_train_timesteps=100),
    _sched_call("FlowMapEulerDiscreteScheduler", "scheduling_flow_map_euler_discrete", "scale_model_input",
                _scale_args, num_train_timesteps=100),
    _sched_call("EDMEulerScheduler", "scheduling_edm_euler", "add_noise", _noise_args, num_train_timesteps=100),
    _sched_call("DDIMParallelScheduler", "scheduling_ddim_parallel", "add_noise", _noise_args,
                num_train_timesteps=100),
    _sched_call("DDPMParallelScheduler", "scheduling_ddpm_parallel", "add_noise", _noise_args,
                num_train_timesteps=100),
    _sched_call("CogVideoXDPMScheduler", "scheduling_dpm_cogvideox", "add_noise", _noise_args,
                num_train_timesteps=100),
    _sched_call("DDPMWuerstchenScheduler", "scheduling_ddpm_wuerstchen", "add_noise", _noise_args),
]


def _autoencoder_dc(device):
    import torch
    from diffusers import AutoencoderDC

    model = AutoencoderDC(in_channels=3, latent_channels=4, attention_head_dim=2,
                          encoder_block_types=("ResBlock", "EfficientViTBlock"),
                          decoder_block_types=("ResBlock", "EfficientViTBlock"), encoder_block_out_channels=(8, 8),
                          decoder_block_out_channels=(8, 8), encoder_qkv_multiscales=((), (5,)),
                          decoder_qkv_multiscales=((), (5,)), encoder_layers_per_block=(1, 1),
                          decoder_layers_per_block=(1, 1), downsample_block_type="conv",
                          upsample_block_type="interpolate", decoder_norm_types="rms_norm", decoder_act_fns="silu",
                          scaling_factor=0.41407)
    return model, (torch.randn(1, 3, 32, 32, device=device),), {}


def _qwen_image(device):
    import torch
    from diffusers import QwenImageTransformer2DModel

    model = QwenImageTransformer2DModel(patch_size=2, in_channels=16, out_channels=4, num_layers=2,
                                        attention_head_dim=16, num_attention_heads=2, joint_attention_dim=16,
                                        axes_dims_rope=(8, 4, 4))
    return model, (torch.randn(1, 16, 16, device=device),), {
        "encoder_hidden_states": torch.randn(1, 7, 16, device=device),
        "encoder_hidden_states_mask": torch.ones(1, 7, device=device), "timestep": torch.tensor([1.0], device=device),
        "img_shapes": [(1, 4, 4)]}


def _mid_block(device):
    import torch
    from diffusers.models.unets.unet_2d_blocks import UNetMidBlock2D

    block = UNetMidBlock2D(in_channels=16, temb_channels=32, resnet_groups=8, attention_head_dim=8)
    return block, (torch.randn(1, 16, 8, 8, device=device), torch.randn(1, 32, device=device)), {}


def _attn_up(device):
    import torch
    from diffusers.models.unets.unet_2d_blocks import AttnUpBlock2D

    block = AttnUpBlock2D(in_channels=16, prev_output_channel=16, out_channels=16, temb_channels=32, num_layers=1,
                          resnet_groups=8, attention_head_dim=8)
    return block, (torch.randn(1, 16, 8, 8, device=device), (torch.randn(1, 16, 8, 8, device=device),),
                   torch.randn(1, 32, device=device)), {}


# Fifteenth session: more dev cases (names that hash to dev only).
CASES += [
    Case("diffusers", "AutoencoderDC", _autoencoder_dc),
    Case("diffusers", "QwenImageTransformer2DModel", _qwen_image),
    Case("diffusers", "unet_2d_blocks.UNetMidBlock2D", _mid_block),
    Case("diffusers", "unet_2d_blocks.AttnUpBlock2D", _attn_up),
    Case("diffusers", "normalization.AdaLayerNormContinuous", _block(
        "diffusers.models.normalization.AdaLayerNormContinuous", _tensors((1, 6, 16), conditioning_embedding=(1, 32)),
        embedding_dim=16, conditioning_embedding_dim=32, elementwise_affine=False, eps=1e-6)),
    Case("diffusers", "embeddings.GaussianFourierProjection", _block(
        "diffusers.models.embeddings.GaussianFourierProjection", _timesteps_input, embedding_size=16, scale=16.0)),
    _sched_call("DDPMScheduler", "scheduling_ddpm", "get_velocity", _noise_args, num_train_timesteps=100),
]


def _hunyuan_video(device):
    import torch
    from diffusers import HunyuanVideoTransformer3DModel

    model = HunyuanVideoTransformer3DModel(in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=10,
                                           num_layers=1, num_single_layers=1, num_refiner_layers=1, patch_size=1,
                                           patch_size_t=1, guidance_embeds=True, text_embed_dim=16,
                                           pooled_projection_dim=8, rope_axes_dim=(2, 4, 4))
    return model, (torch.randn(1, 4, 1, 8, 8, device=device), torch.tensor([10.0], device=device),
                   torch.randn(1, 6, 16, device=device), torch.ones(1, 6, device=device),
                   torch.randn(1, 8, device=device)), {"guidance": torch.tensor([6000.0], device=device)}


def _lumina2(device):
    import torch
    from diffusers import Lumina2Transformer2DModel

    model = Lumina2Transformer2DModel(sample_size=16, patch_size=2, in_channels=4, hidden_size=24, num_layers=1,
                                      num_refiner_layers=1, num_attention_heads=3, num_kv_heads=1, multiple_of=2,
                                      axes_dim_rope=(4, 2, 2), axes_lens=(128, 128, 128), cap_feat_dim=32)
    return model, (torch.randn(1, 4, 16, 16, device=device), torch.rand(1, device=device),
                   torch.randn(1, 8, 32, device=device), torch.ones(1, 8, dtype=torch.bool, device=device)), {}


def _mochi(device):
    import torch
    from diffusers import MochiTransformer3DModel

    model = MochiTransformer3DModel(patch_size=2, num_attention_heads=2, attention_head_dim=8, num_layers=1,
                                    pooled_projection_dim=16, in_channels=4, text_embed_dim=16, time_embed_dim=4,
                                    max_sequence_length=16)
    return model, (torch.randn(1, 4, 2, 8, 8, device=device), torch.randn(1, 8, 16, device=device),
                   torch.tensor([10], device=device), torch.ones(1, 8, dtype=torch.bool, device=device)), {}


def _hidream(device):
    """HiDream-I1: dual-stream and single-stream blocks with mixture-of-experts feed-forwards."""
    import torch
    from diffusers import HiDreamImageTransformer2DModel

    model = HiDreamImageTransformer2DModel(patch_size=2, in_channels=4, out_channels=4, num_layers=1,
                                           num_single_layers=1, attention_head_dim=8, num_attention_heads=4,
                                           caption_channels=[8, 4], text_emb_dim=8, num_routed_experts=2,
                                           num_activated_experts=2, axes_dims_rope=(4, 2, 2), max_resolution=(32, 32),
                                           llama_layers=(0, 1), force_inference_output=True)
    return model, (torch.randn(1, 4, 16, 16, device=device),), {
        "timesteps": torch.tensor([10], device=device), "encoder_hidden_states_t5": torch.randn(1, 8, 8, device=device),
        "encoder_hidden_states_llama3": torch.randn(2, 1, 8, 4, device=device),
        "pooled_embeds": torch.randn(1, 8, device=device)}


def _cogview3plus(device):
    import torch
    from diffusers import CogView3PlusTransformer2DModel

    model = CogView3PlusTransformer2DModel(patch_size=2, in_channels=4, num_layers=1, attention_head_dim=4,
                                           num_attention_heads=2, out_channels=4, text_embed_dim=8, time_embed_dim=8,
                                           condition_dim=2, pos_embed_max_size=8, sample_size=8)
    size = torch.tensor([[64, 64]], device=device)
    return model, (torch.randn(1, 4, 8, 8, device=device), torch.randn(1, 8, 8, device=device),
                   torch.tensor([10], device=device), size, size, torch.zeros(1, 2, device=device)), {}


def _cosmos(device):
    import torch
    from diffusers import CosmosTransformer3DModel

    model = CosmosTransformer3DModel(in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=12,
                                     num_layers=1, mlp_ratio=2, text_embed_dim=16, adaln_lora_dim=4,
                                     max_size=(4, 32, 32), patch_size=(1, 2, 2), concat_padding_mask=False)
    return model, (torch.randn(1, 4, 1, 16, 16, device=device), torch.tensor([10], device=device),
                   torch.randn(1, 8, 16, device=device)), {"attention_mask": torch.ones(1, 8, device=device), "fps": 30}


def _flux2(device):
    import torch
    from diffusers import Flux2Transformer2DModel

    model = Flux2Transformer2DModel(patch_size=1, in_channels=4, num_layers=1, num_single_layers=1,
                                    attention_head_dim=16, num_attention_heads=2, joint_attention_dim=32,
                                    axes_dims_rope=[4, 4, 4, 4])
    image_ids = torch.cartesian_prod(torch.arange(1), torch.arange(4), torch.arange(4), torch.arange(1))
    text_ids = torch.cartesian_prod(torch.arange(1), torch.arange(1), torch.arange(1), torch.arange(8))
    return model, (torch.randn(1, 16, 4, device=device), torch.randn(1, 8, 32, device=device)), {
        "timestep": torch.tensor([1.0], device=device), "img_ids": image_ids[None].to(device),
        "txt_ids": text_ids[None].to(device), "guidance": torch.tensor([4.0], device=device)}


def _stable_audio_dit(device):
    """StableAudioDiTModel on a latent waveform, with the pipeline's 1-D rotary embedding."""
    import torch
    from diffusers import StableAudioDiTModel
    from diffusers.models.embeddings import get_1d_rotary_pos_embed

    model = StableAudioDiTModel(sample_size=8, in_channels=4, num_layers=1, attention_head_dim=8,
                                num_attention_heads=2, num_key_value_attention_heads=1, out_channels=4,
                                cross_attention_dim=8, time_proj_dim=8, global_states_input_dim=16,
                                cross_attention_input_dim=8)
    rotary = get_1d_rotary_pos_embed(4, 8 + 1, use_real=True, repeat_interleave_real=False)
    return model, (torch.randn(1, 4, 8, device=device), torch.tensor([10.0], device=device)), {
        "encoder_hidden_states": torch.randn(1, 5, 8, device=device),
        "global_hidden_states": torch.randn(1, 1, 16, device=device),
        "rotary_embedding": tuple(r.to(device) for r in rotary)}


def _hunyuan_video_vae(device):
    import torch
    from diffusers import AutoencoderKLHunyuanVideo

    model = AutoencoderKLHunyuanVideo(in_channels=3, out_channels=3, latent_channels=4,
                                      down_block_types=("HunyuanVideoDownBlock3D",) * 4,
                                      up_block_types=("HunyuanVideoUpBlock3D",) * 4, block_out_channels=(8, 8, 8, 8),
                                      layers_per_block=1, norm_num_groups=4, spatial_compression_ratio=8,
                                      temporal_compression_ratio=4)
    return model, (torch.randn(1, 3, 5, 16, 16, device=device),), {}


def _mochi_vae(device):
    import torch
    from diffusers import AutoencoderKLMochi

    model = AutoencoderKLMochi(in_channels=15, out_channels=3, latent_channels=4,
                               encoder_block_out_channels=(32, 32, 32, 32),
                               decoder_block_out_channels=(32, 32, 32, 32), layers_per_block=(1, 1, 1, 1, 1))
    return model, (torch.randn(1, 3, 7, 16, 16, device=device),), {}


def _consistency_vae(device):
    """ConsistencyDecoderVAE: a KL encoder and a UNet consistency decoder sampled in ``decode``."""
    import torch
    from diffusers import ConsistencyDecoderVAE

    model = ConsistencyDecoderVAE(encoder_block_out_channels=[8, 16], encoder_in_channels=3, encoder_out_channels=4,
                                  encoder_down_block_types=["DownEncoderBlock2D"] * 2, decoder_add_attention=False,
                                  decoder_block_out_channels=[8, 16],
                                  decoder_down_block_types=["ResnetDownsampleBlock2D"] * 2,
                                  decoder_downsample_padding=1, decoder_in_channels=7, decoder_layers_per_block=1,
                                  decoder_norm_eps=1e-05, decoder_norm_num_groups=4, encoder_norm_num_groups=4,
                                  decoder_num_train_timesteps=1024, decoder_out_channels=6,
                                  decoder_resnet_time_scale_shift="scale_shift",
                                  decoder_time_embedding_type="learned",
                                  decoder_up_block_types=["ResnetUpsampleBlock2D"] * 2, scaling_factor=1,
                                  latent_channels=4)
    return model, (torch.randn(1, 3, 32, 32, device=device),), {}


def _flux_controlnet(device):
    import torch
    from diffusers import FluxControlNetModel

    model = FluxControlNetModel(patch_size=1, in_channels=4, num_layers=1, num_single_layers=1,
                                attention_head_dim=16, num_attention_heads=2, joint_attention_dim=32,
                                pooled_projection_dim=16, axes_dims_rope=[4, 4, 8])
    return model, (torch.randn(1, 16, 4, device=device), torch.randn(1, 16, 4, device=device)), {
        "encoder_hidden_states": torch.randn(1, 4, 32, device=device),
        "pooled_projections": torch.randn(1, 16, device=device), "timestep": torch.tensor([1.0], device=device),
        "img_ids": torch.zeros(16, 3, device=device), "txt_ids": torch.zeros(4, 3, device=device)}


def _sparse_controlnet(device):
    """SparseCtrl (AnimateDiff): a motion ControlNet on a batch of frames, conditioned on sparse frames."""
    import torch
    from diffusers import SparseControlNetModel

    model = SparseControlNetModel(in_channels=4, conditioning_channels=3, block_out_channels=(8, 16),
                                  down_block_types=("CrossAttnDownBlockMotion", "DownBlockMotion"),
                                  layers_per_block=1, norm_num_groups=4, cross_attention_dim=8,
                                  attention_head_dim=4, conditioning_embedding_out_channels=(8, 8),
                                  motion_max_seq_length=8, motion_num_attention_heads=2,
                                  use_simplified_condition_embedding=False)
    frames = 2
    return model, (torch.randn(1, 4, frames, 8, 8, device=device), torch.tensor([10], device=device),
                   torch.randn(frames, 4, 8, device=device), torch.randn(1, 3, frames, 16, 16, device=device)), {
        "conditioning_mask": torch.ones(1, 1, frames, 16, 16, device=device)}


def _set_timesteps_args(scheduler, device):
    return (10,), {"device": device}


def _wuerstchen_step(scheduler, device):
    import torch

    sample = torch.randn(1, 4, 8, 8, device=device)
    return (torch.randn_like(sample), scheduler.timesteps[:1], sample), {"return_dict": False}


def _score_sde_correct(device):
    """ScoreSdeVeScheduler.step_correct: the Langevin corrector of the score-SDE predictor-corrector loop."""
    import torch
    from diffusers import ScoreSdeVeScheduler

    scheduler = ScoreSdeVeScheduler(num_train_timesteps=100)
    scheduler.set_timesteps(10)
    scheduler.set_sigmas(10)
    sample = torch.randn(1, 4, 8, 8, device=device)
    return scheduler.step_correct, (torch.randn_like(sample), sample), {"return_dict": False}


def _boxes_input(device):
    import torch

    xy = torch.rand(1, 3, 2, device=device) * 0.5
    return (8, torch.cat([xy, xy + 0.25], dim=-1)), {}


def _rope_3d_input(device):
    return (16, ((0, 0), (4, 4)), (4, 4), 2), {"device": device}


def _cogvideox_patch_embed(device):
    import torch
    from diffusers.models.embeddings import CogVideoXPatchEmbed

    embed = CogVideoXPatchEmbed(patch_size=2, in_channels=4, embed_dim=16, text_embed_dim=8, sample_width=8,
                                sample_height=8, sample_frames=5, temporal_compression_ratio=4,
                                max_text_seq_length=4)
    return embed, (torch.randn(1, 4, 8, device=device), torch.randn(1, 2, 4, 8, 8, device=device)), {}


# Sixteenth session: more dev cases (names that hash to dev only).
CASES += [
    Case("diffusers", "HunyuanVideoTransformer3DModel", _hunyuan_video),
    Case("diffusers", "Lumina2Transformer2DModel", _lumina2),
    Case("diffusers", "MochiTransformer3DModel", _mochi),
    Case("diffusers", "HiDreamImageTransformer2DModel", _hidream),
    Case("diffusers", "CogView3PlusTransformer2DModel", _cogview3plus),
    Case("diffusers", "CosmosTransformer3DModel", _cosmos),
    Case("diffusers", "Flux2Transformer2DModel", _flux2),
    Case("diffusers", "StableAudioDiTModel", _stable_audio_dit),
    Case("diffusers", "AutoencoderKLHunyuanVideo", _hunyuan_video_vae),
    Case("diffusers", "AutoencoderKLMochi", _mochi_vae),
    Case("diffusers", "ConsistencyDecoderVAE", _consistency_vae),
    Case("diffusers", "FluxControlNetModel", _flux_controlnet),
    Case("diffusers", "SparseControlNetModel", _sparse_controlnet),
    _sched_call("FlowMatchEulerDiscreteScheduler", "scheduling_flow_match_euler_discrete", "set_timesteps",
                _set_timesteps_args),
    _sched_call("DPMSolverMultistepScheduler", "scheduling_dpmsolver_multistep", "set_timesteps", _set_timesteps_args,
                num_train_timesteps=100),
    _sched_call("DDPMWuerstchenScheduler", "scheduling_ddpm_wuerstchen", "step", _wuerstchen_step),
    Case("diffusers", "ScoreSdeVeScheduler.step_correct", _score_sde_correct,
         target="diffusers.schedulers.scheduling_sde_ve.ScoreSdeVeScheduler.step_correct", modes=("call",)),
    function_case("diffusers", "diffusers.models.embeddings.get_fourier_embeds_from_boundingbox", _boxes_input),
    function_case("diffusers", "diffusers.models.embeddings.get_3d_rotary_pos_embed", _rope_3d_input),
    Case("diffusers", "embeddings.CogVideoXPatchEmbed", _cogvideox_patch_embed),
    Case("diffusers", "embeddings.PixArtAlphaTextProjection", _block(
        "diffusers.models.embeddings.PixArtAlphaTextProjection", _tensors((1, 6, 16)), in_features=16,
        hidden_size=32)),
]


def _label_inputs(device):
    import torch

    return (torch.tensor([10, 20], device=device), torch.tensor([1, 3], device=device)), {}


def _labels_only(device):
    import torch

    return (torch.tensor([1, 3], device=device),), {}


def _adaln_single_inputs(device):
    import torch

    return (torch.tensor([10, 20], device=device),), {"batch_size": 2, "hidden_dtype": torch.float32,
                                                      "added_cond_kwargs": {"resolution": None, "aspect_ratio": None}}


def _temb_block(path: str, shape, temb_dim: int, **config):
    """A block taking a feature map and a time embedding (``forward(x, temb)``)."""

    def inputs(device):
        import torch

        return (torch.randn(*shape, device=device), torch.randn(1, temb_dim, device=device)), {}

    return _block(path, inputs, **config)


def _vq_input(device):
    import torch

    return (torch.randn(1, 4, 8, 8, device=device),), {}



def _k_cross_attn_down(device):
    import torch
    from diffusers.models.unets.unet_2d_blocks import KCrossAttnDownBlock2D

    block = KCrossAttnDownBlock2D(in_channels=16, out_channels=16, temb_channels=32, cross_attention_dim=16,
                                  num_layers=1, resnet_group_size=8, attention_head_dim=8)
    return block, (torch.randn(1, 16, 8, 8, device=device), torch.randn(1, 32, device=device),
                   torch.randn(1, 4, 16, device=device)), {}


def _transformer_temporal(device):
    import torch
    from diffusers.models.transformers.transformer_temporal import TransformerTemporalModel

    model = TransformerTemporalModel(num_attention_heads=2, attention_head_dim=8, in_channels=16, norm_num_groups=8)
    return model, (torch.randn(4, 16, 4, 4, device=device),), {"num_frames": 2, "return_dict": False}



# Eighteenth session: more dev cases (names that hash to dev only).
CASES += [
    Case("diffusers", "embeddings.CombinedTimestepLabelEmbeddings", _block(
        "diffusers.models.embeddings.CombinedTimestepLabelEmbeddings", _label_inputs, num_classes=4,
        embedding_dim=32)),
    Case("diffusers", "embeddings.LabelEmbedding", _block("diffusers.models.embeddings.LabelEmbedding", _labels_only,
                                                          num_classes=4, hidden_size=16, dropout_prob=0.1)),
    Case("diffusers", "normalization.AdaLayerNormSingle", _block(
        "diffusers.models.normalization.AdaLayerNormSingle", _adaln_single_inputs, embedding_dim=16)),
    Case("diffusers", "resnet.ResnetBlockCondNorm2D", _temb_block(
        "diffusers.models.resnet.ResnetBlockCondNorm2D", (1, 8, 8, 8), 16, in_channels=8, out_channels=8,
        temb_channels=16, groups=4, time_embedding_norm="ada_group")),
    Case("diffusers", "downsampling.FirDownsample2D", _block(
        "diffusers.models.downsampling.FirDownsample2D", _tensors((1, 8, 8, 8)), channels=8, out_channels=8,
        use_conv=True)),
    Case("diffusers", "upsampling.KUpsample2D", _block("diffusers.models.upsampling.KUpsample2D",
                                                       _tensors((1, 8, 8, 8)))),
    Case("diffusers", "attention.FeedForward_geglu", _block("diffusers.models.attention.FeedForward",
                                                            _tensors((1, 6, 16)), dim=16, activation_fn="geglu")),
    Case("diffusers", "vae.Encoder", _block("diffusers.models.autoencoders.vae.Encoder", _tensors((1, 3, 16, 16)),
                                            in_channels=3, out_channels=4, block_out_channels=(16, 32),
                                            down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
                                            layers_per_block=1, norm_num_groups=8)),
    Case("diffusers", "vae.Decoder", _block("diffusers.models.autoencoders.vae.Decoder", _tensors((1, 4, 8, 8)),
                                            in_channels=4, out_channels=3, block_out_channels=(16, 32),
                                            up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
                                            layers_per_block=1, norm_num_groups=8)),
    Case("diffusers", "vq_model.VectorQuantizer", _block("diffusers.models.autoencoders.vae.VectorQuantizer",
                                                         _vq_input, n_e=16, vq_embed_dim=4, beta=0.25)),
    Case("diffusers", "unet_2d_blocks.AttnDownBlock2D", _temb_block(
        "diffusers.models.unets.unet_2d_blocks.AttnDownBlock2D", (1, 16, 8, 8), 32, in_channels=16,
        out_channels=16, temb_channels=32, num_layers=1, resnet_groups=8, attention_head_dim=8)),
    Case("diffusers", "unet_2d_blocks.KCrossAttnDownBlock2D", _k_cross_attn_down),
    Case("diffusers", "transformer_temporal.TransformerTemporalModel", _transformer_temporal),
]
