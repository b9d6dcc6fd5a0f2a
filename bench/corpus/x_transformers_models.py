"""x-transformers configurations for the corpus (TransformerWrapper and friends, tiny: dim 32, depth 2)."""

from __future__ import annotations

from bench.corpus import Case

NUM_TOKENS, SEQ = 64, 16


def _wrapper(layers: str = "Decoder", wrapper: dict | None = None, **attn):
    def factory(device):
        import torch
        import x_transformers as xt

        layer_cls = getattr(xt, layers)
        model = xt.TransformerWrapper(num_tokens=NUM_TOKENS, max_seq_len=32, **(wrapper or {}),
                                      attn_layers=layer_cls(dim=32, depth=2, heads=2, **attn))
        tokens = torch.randint(0, NUM_TOKENS, (2, SEQ), device=device)
        kwargs = {"mask": torch.ones(2, SEQ, dtype=torch.bool, device=device)} if layers == "Encoder" else {}
        return model, (tokens,), kwargs

    return factory


def _continuous(device):
    import torch
    from x_transformers import ContinuousTransformerWrapper, Encoder

    model = ContinuousTransformerWrapper(dim_in=8, dim_out=8, max_seq_len=32,
                                         attn_layers=Encoder(dim=32, depth=2, heads=2))
    return model, (torch.randn(2, SEQ, 8, device=device),), {}


def _xtransformer(device):
    import torch
    from x_transformers import XTransformer

    model = XTransformer(dim=32, enc_num_tokens=NUM_TOKENS, enc_depth=2, enc_heads=2, enc_max_seq_len=32,
                         dec_num_tokens=NUM_TOKENS, dec_depth=2, dec_heads=2, dec_max_seq_len=32)
    src = torch.randint(0, NUM_TOKENS, (2, SEQ), device=device)
    tgt = torch.randint(0, NUM_TOKENS, (2, SEQ), device=device)
    return model, (src, tgt), {"mask": torch.ones(2, SEQ, dtype=torch.bool, device=device)}


def _vit(device):
    import torch
    from x_transformers import Encoder, ViTransformerWrapper

    model = ViTransformerWrapper(image_size=32, patch_size=8, num_classes=4,
                                 attn_layers=Encoder(dim=32, depth=2, heads=2))
    return model, (torch.randn(2, 3, 32, 32, device=device),), {}


def _autoregressive(device):
    import torch
    from x_transformers import AutoregressiveWrapper, Decoder, TransformerWrapper

    model = AutoregressiveWrapper(TransformerWrapper(num_tokens=NUM_TOKENS, max_seq_len=32,
                                                     attn_layers=Decoder(dim=32, depth=2, heads=2)))
    return model, (torch.randint(0, NUM_TOKENS, (2, SEQ + 1), device=device),), {}


CASES: list[Case] = [
    Case("x_transformers", "decoder", _wrapper()),
    Case("x_transformers", "encoder", _wrapper("Encoder")),
    Case("x_transformers", "decoder_rotary", _wrapper(rotary_pos_emb=True)),
    Case("x_transformers", "decoder_alibi", _wrapper(alibi_pos_bias=True)),
    Case("x_transformers", "decoder_memory_tokens", _wrapper(wrapper={"num_memory_tokens": 2})),
    Case("x_transformers", "decoder_rel_pos_bias", _wrapper(rel_pos_bias=True)),
    Case("x_transformers", "decoder_glu_rmsnorm", _wrapper(ff_glu=True, use_rmsnorm=True)),
    Case("x_transformers", "encoder_residual_attn", _wrapper("Encoder", residual_attn=True)),
    Case("x_transformers", "decoder_macaron_shift", _wrapper(macaron=True, shift_tokens=1)),
    Case("x_transformers", "decoder_mem_kv", _wrapper(attn_num_mem_kv=2)),
    Case("x_transformers", "decoder_dynamic_pos_bias", _wrapper(dynamic_pos_bias=True)),
    Case("x_transformers", "encoder_sandwich_norm", _wrapper("Encoder", sandwich_norm=True)),
    Case("x_transformers", "continuous_encoder", _continuous),
    Case("x_transformers", "xtransformer", _xtransformer),
    Case("x_transformers", "vit_wrapper", _vit),
    Case("x_transformers", "autoregressive_wrapper", _autoregressive),
]
