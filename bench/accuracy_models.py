"""Real transformers models for the accuracy benchmark (static predictions vs Dynamo's truth).

Each entry of ``MODELS`` names a model, the transformers modeling module(s) whose source the static
pass should scan, a tiny-config builder ``factory(device) -> (model, args, kwargs)`` (random weights,
seeded, eval mode; never downloads anything), and what Dynamo reported for it.

``observed`` lists the unique graph-break sites measured on torch 2.13.0+cpu / transformers 5.23.0 with a
default-mode ``torch.compile(model, backend="eager")`` called twice with the same inputs (grad mode on,
model in eval mode), read from Dynamo's graph-break log and de-duplicated on (file, line, graph-break
type). Each site is ``(path relative to the transformers package, line, GB id, graph-break type)``.
Line numbers are those of transformers 5.23.0. ``breaks`` is ``len(observed)``.

Usage::

    from bench.accuracy_models import MODELS, build
    model, args, kwargs = build("gpt2", "cpu")
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

VOCAB = 128


def _ids(device, batch=2, seq=16, vocab=VOCAB):
    import torch

    input_ids = torch.randint(3, vocab, (batch, seq), device=device)
    return input_ids, torch.ones_like(input_ids)


def _decoder_only(config_cls, model_cls, **config_kwargs):
    def factory(device):
        import transformers

        config = getattr(transformers, config_cls)(**config_kwargs)
        model = getattr(transformers, model_cls)(config)
        input_ids, attention_mask = _ids(device)
        return model, (input_ids,), {"attention_mask": attention_mask}

    return factory


_LLAMA_LIKE = dict(
    vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
    intermediate_size=64, max_position_embeddings=64,
)


def _gpt2(device):
    from transformers import GPT2Config, GPT2Model

    model = GPT2Model(GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=2, n_positions=64))
    input_ids, attention_mask = _ids(device)
    return model, (input_ids,), {"attention_mask": attention_mask}


def _bert(device):
    from transformers import BertConfig, BertModel

    model = BertModel(BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                 intermediate_size=64, max_position_embeddings=64))
    input_ids, attention_mask = _ids(device)
    return model, (input_ids,), {"attention_mask": attention_mask}


def _deberta_v2(device):
    from transformers import DebertaV2Config, DebertaV2Model

    model = DebertaV2Model(DebertaV2Config(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=64, relative_attention=True, position_buckets=8, pos_att_type=["p2c", "c2p"]))
    input_ids, attention_mask = _ids(device)
    return model, (input_ids,), {"attention_mask": attention_mask}


def _t5(device):
    from transformers import T5Config, T5Model

    model = T5Model(T5Config(vocab_size=VOCAB, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_decoder_layers=2,
                             num_heads=2, relative_attention_num_buckets=8, decoder_start_token_id=0))
    input_ids, attention_mask = _ids(device)
    return model, (input_ids,), {"attention_mask": attention_mask, "decoder_input_ids": input_ids[:, :8]}


def _bart(device):
    from transformers import BartConfig, BartModel

    model = BartModel(BartConfig(vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2,
                                 encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                                 decoder_ffn_dim=64, max_position_embeddings=64))
    input_ids, attention_mask = _ids(device)
    return model, (input_ids,), {"attention_mask": attention_mask, "decoder_input_ids": input_ids[:, :8]}


def _funnel(device):
    from transformers import FunnelConfig, FunnelModel

    model = FunnelModel(FunnelConfig(vocab_size=VOCAB, d_model=32, n_head=2, d_head=16, d_inner=64,
                                     block_sizes=[1, 1], num_decoder_layers=1))
    input_ids, attention_mask = _ids(device)
    return model, (input_ids,), {"attention_mask": attention_mask}


def _xlnet(device):
    from transformers import XLNetConfig, XLNetModel

    model = XLNetModel(XLNetConfig(vocab_size=VOCAB, d_model=32, n_layer=2, n_head=2, d_inner=64))
    input_ids, attention_mask = _ids(device)
    return model, (input_ids,), {"attention_mask": attention_mask}


def _ctrl(device):
    from transformers import CTRLConfig, CTRLModel

    model = CTRLModel(CTRLConfig(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=2, dff=64, n_positions=64))
    input_ids, attention_mask = _ids(device)
    return model, (input_ids,), {"attention_mask": attention_mask}


def _longformer(device):
    from transformers import LongformerConfig, LongformerModel

    model = LongformerModel(LongformerConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=128, attention_window=8, pad_token_id=1))
    input_ids, attention_mask = _ids(device)
    global_attention_mask = attention_mask.new_zeros(attention_mask.shape)
    global_attention_mask[:, 0] = 1
    return model, (input_ids,), {"attention_mask": attention_mask, "global_attention_mask": global_attention_mask}


def _led(device):
    from transformers import LEDConfig, LEDModel

    model = LEDModel(LEDConfig(
        vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_encoder_position_embeddings=64,
        max_decoder_position_embeddings=64, attention_window=8, pad_token_id=1, decoder_start_token_id=2))
    input_ids, attention_mask = _ids(device)
    return model, (input_ids,), {"attention_mask": attention_mask, "decoder_input_ids": input_ids[:, :8]}


def _reformer(device):
    from transformers import ReformerConfig, ReformerModel

    model = ReformerModel(ReformerConfig(
        vocab_size=VOCAB, hidden_size=32, num_attention_heads=2, attention_head_size=16,
        attn_layers=["local", "lsh"], feed_forward_size=64, axial_pos_embds=True, axial_pos_shape=[4, 8],
        axial_pos_embds_dim=[16, 16], max_position_embeddings=32, local_attn_chunk_length=8,
        lsh_attn_chunk_length=8, num_buckets=4, num_hashes=1, is_decoder=False, pad_token_id=0))
    input_ids, attention_mask = _ids(device, seq=32)
    return model, (input_ids,), {"attention_mask": attention_mask}


def _big_bird(device):
    from transformers import BigBirdConfig, BigBirdModel

    model = BigBirdModel(BigBirdConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=256, attention_type="block_sparse", block_size=4, num_random_blocks=2))
    input_ids, attention_mask = _ids(device, seq=64)  # block-sparse needs seq > 36 here
    return model, (input_ids,), {"attention_mask": attention_mask}


def _switch_transformers(device):
    from transformers import SwitchTransformersConfig, SwitchTransformersEncoderModel

    model = SwitchTransformersEncoderModel(SwitchTransformersConfig(
        vocab_size=VOCAB, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=2,
        num_experts=2, encoder_sparse_step=1, decoder_sparse_step=1, expert_capacity=8,
        relative_attention_num_buckets=8, pad_token_id=0, decoder_start_token_id=0))
    input_ids, attention_mask = _ids(device)
    return model, (input_ids,), {"attention_mask": attention_mask}


def _nllb_moe(device):
    from transformers import NllbMoeConfig, NllbMoeModel

    model = NllbMoeModel(NllbMoeConfig(
        vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, num_experts=2, expert_capacity=8,
        encoder_sparse_step=1, decoder_sparse_step=1, max_position_embeddings=64, pad_token_id=1,
        decoder_start_token_id=2))
    input_ids, attention_mask = _ids(device)
    return model.get_encoder(), (input_ids,), {"attention_mask": attention_mask}


_OUTPUT_CAPTURING_GB4347 = ("utils/output_capturing.py", 332, "GB4347", "Missing tp_iternext")

MODELS: list[dict] = [
    # ---- no graph break on torch 2.13 (eval mode) ----
    dict(name="gpt2", modules=("transformers.models.gpt2.modeling_gpt2",),
         factory=_gpt2, breaks=0, observed=()),  # 0 breaks
    dict(name="bert", modules=("transformers.models.bert.modeling_bert",),
         factory=_bert, breaks=0, observed=()),  # 0 breaks
    dict(name="llama", modules=("transformers.models.llama.modeling_llama",),
         factory=_decoder_only("LlamaConfig", "LlamaModel", **_LLAMA_LIKE), breaks=0, observed=()),  # 0 breaks
    dict(name="mistral", modules=("transformers.models.mistral.modeling_mistral",),
         factory=_decoder_only("MistralConfig", "MistralModel", **_LLAMA_LIKE), breaks=0, observed=()),  # 0 breaks
    dict(name="qwen2", modules=("transformers.models.qwen2.modeling_qwen2",),
         factory=_decoder_only("Qwen2Config", "Qwen2Model", **_LLAMA_LIKE), breaks=0, observed=()),  # 0 breaks
    dict(name="t5", modules=("transformers.models.t5.modeling_t5",),
         factory=_t5, breaks=0, observed=()),  # 0 breaks
    dict(name="bart", modules=("transformers.models.bart.modeling_bart",),
         factory=_bart, breaks=0, observed=()),  # 0 breaks
    dict(name="deberta_v2", modules=("transformers.models.deberta_v2.modeling_deberta_v2",),
         factory=_deberta_v2, breaks=0, observed=()),  # 0 breaks
    dict(name="funnel", modules=("transformers.models.funnel.modeling_funnel",),
         factory=_funnel, breaks=0, observed=()),  # 0 breaks
    dict(name="xlnet", modules=("transformers.models.xlnet.modeling_xlnet",),
         factory=_xlnet, breaks=0, observed=()),  # 0 breaks
    # MoE with the current (grouped / masked) expert dispatch: no break either.
    dict(name="mixtral", modules=("transformers.models.mixtral.modeling_mixtral",),
         factory=_decoder_only("MixtralConfig", "MixtralModel", **_LLAMA_LIKE, num_local_experts=4,
                               num_experts_per_tok=2),
         breaks=0, observed=()),  # 0 breaks
    dict(name="qwen2_moe", modules=("transformers.models.qwen2_moe.modeling_qwen2_moe",),
         factory=_decoder_only("Qwen2MoeConfig", "Qwen2MoeModel", **_LLAMA_LIKE, num_experts=4,
                               num_experts_per_tok=2, moe_intermediate_size=32,
                               shared_expert_intermediate_size=32),
         breaks=0, observed=()),  # 0 breaks
    # ---- graph breaks on torch 2.13 (eval mode) ----
    dict(name="longformer", modules=("transformers.models.longformer.modeling_longformer",),
         factory=_longformer, breaks=7,  # 7 breaks (with global attention; 1 without)
         observed=(
             ("models/longformer/modeling_longformer.py", 1175, "GB0124",
              "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
             ("models/longformer/modeling_longformer.py", 859, "GB0036", "Dynamic shape operator"),
             ("models/longformer/modeling_longformer.py", 867, "GB0036", "Dynamic shape operator"),
             ("models/longformer/modeling_longformer.py", 870, "GB0036", "Dynamic shape operator"),
             ("models/longformer/modeling_longformer.py", 934, "GB0033", "Data dependent operator"),
             ("models/longformer/modeling_longformer.py", 985, "GB6622", "list_richcompare_nonconst"),
             ("models/longformer/modeling_longformer.py", 1023, "GB6622", "list_richcompare_nonconst"),
         )),
    dict(name="led", modules=("transformers.models.led.modeling_led",),
         factory=_led, breaks=1,  # 1 break
         observed=(
             ("models/led/modeling_led.py", 1445, "GB0124",
              "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
         )),
    dict(name="reformer", modules=("transformers.models.reformer.modeling_reformer",),
         factory=_reformer, breaks=5,  # 5 breaks (+1 recompile: requires_grad mismatch in ReformerLayer.forward)
         observed=(
             ("models/reformer/modeling_reformer.py", 2023, "GB0170", "Data-dependent branching"),
             ("models/reformer/modeling_reformer.py", 2028, "GB0170", "Data-dependent branching"),
             ("models/reformer/modeling_reformer.py", 2073, "GB0170", "Data-dependent branching"),
             ("models/reformer/modeling_reformer.py", 270, "GB0124",
              "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
             ("models/reformer/modeling_reformer.py", 750, "GB0124",
              "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
         )),
    dict(name="big_bird", modules=("transformers.models.big_bird.modeling_big_bird", "transformers.utils.output_capturing"),
         factory=_big_bird, breaks=2,  # 2 breaks (+1 recompile: guard self.seed == 0)
         observed=(
             ("models/big_bird/modeling_big_bird.py", 907, "GB0033", "Data dependent operator"),
             _OUTPUT_CAPTURING_GB4347,
         )),
    dict(name="switch_transformers",
         modules=("transformers.models.switch_transformers.modeling_switch_transformers",
                  "transformers.utils.output_capturing"),
         factory=_switch_transformers, breaks=3,  # 3 breaks (encoder only, 2 experts)
         observed=(
             ("models/switch_transformers/modeling_switch_transformers.py", 173, "GB0036", "Dynamic shape operator"),
             ("models/switch_transformers/modeling_switch_transformers.py", 175, "GB0036", "Dynamic shape operator"),
             _OUTPUT_CAPTURING_GB4347,
         )),
    # The break's innermost frame is torch's Module.register_buffer, reached from modeling_ctrl.py:317
    # (CTRLModel.forward assigns ``self.pos_encoding = self.pos_encoding.to(...)``). Recorded here at
    # Dynamo's `user code at` location; with transformers as the scanned project (bench/accuracy.py)
    # breakscan places it at modeling_ctrl.py:317, its innermost frame inside the project.
    dict(name="ctrl", modules=("transformers.models.ctrl.modeling_ctrl", "transformers.utils.output_capturing"),
         factory=_ctrl, breaks=2,  # 2 breaks
         observed=(
             ("../torch/nn/modules/module.py", 587, "GB4841", "Unsupported python_type() call"),
             _OUTPUT_CAPTURING_GB4347,
         )),
    dict(name="nllb_moe", modules=("transformers.models.nllb_moe.modeling_nllb_moe", "transformers.utils.output_capturing"),
         factory=_nllb_moe, breaks=3,  # 3 breaks (encoder only, 2 experts)
         observed=(
             ("models/nllb_moe/modeling_nllb_moe.py", 356, "GB0036", "Dynamic shape operator"),
             ("models/nllb_moe/modeling_nllb_moe.py", 358, "GB0036", "Dynamic shape operator"),
             _OUTPUT_CAPTURING_GB4347,
         )),
]

# Held-out models: not looked at while writing or tuning rules (added after the rules were
# final, to estimate how the static pass does on code it was not shaped on; their first run found
# 3 of 9 breaks, and two of the misses, xlm and fsmt, then led to the assert and `.eq()` changes,
# so those two are no longer unseen). Each is built by
# `_auto` from transformers' default config shrunk to two tiny layers; their breaks are whatever
# Dynamo reports (not recorded here). Since bench/corpus exists they are dev cases there (`seen`:
# their misses were printed and read), with the 19 above; its held-out half is new models.
_TINY = dict(
    vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
    max_position_embeddings=64, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
    decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, n_embd=32, n_layer=2, n_head=2,
    n_positions=64, num_layers=2, num_heads=2, d_ff=64, ffn_dim=64, pad_token_id=1,
)
HELDOUT_NAMES = (
    "roberta", "electra", "gpt_neo", "opt", "bloom", "falcon", "esm", "canine", "mpnet", "roformer", "fnet",
    "mra", "yoso", "nystromformer", "bigbird_pegasus", "gpt_bigcode", "xglm", "mpt", "mamba", "fsmt", "xlm",
    "luke", "ibert", "splinter", "mbart",
)


def _auto(model_type: str):
    def factory(device):
        from transformers import AutoConfig, AutoModel

        config = AutoConfig.for_model(model_type)
        for key, value in _TINY.items():
            if hasattr(config, key):
                setattr(config, key, value)
        model = AutoModel.from_config(config)
        input_ids, attention_mask = _ids(device)
        return model, (input_ids,), {"attention_mask": attention_mask}

    return factory


HELDOUT: list[dict] = [dict(name=n, modules=(), factory=_auto(n)) for n in HELDOUT_NAMES]

NAMES = [m["name"] for m in MODELS]


def entry(name: str) -> dict:
    for m in [*MODELS, *HELDOUT]:
        if m["name"] == name:
            return m
    raise KeyError(f"unknown model {name!r}; known: {', '.join(NAMES)}")


def build(name: str, device: str = "cpu"):
    """Build ``name`` from its tiny config (seed 0, eval mode, on ``device``): ``(model, args, kwargs)``."""
    import torch

    torch.manual_seed(0)
    model, args, kwargs = entry(name)["factory"](device)
    return model.eval().to(device), args, kwargs
