"""transformers models for the corpus.

The 19 models of bench/accuracy_models.py MODELS and its 25 former held-out models are marked
``seen`` (the rules were developed on them, and the former held-out half's misses were printed
and read): they are always dev. The others are new: default configs shrunk to two tiny layers,
split by hash like every other code base.
"""

from __future__ import annotations

from bench.accuracy_models import HELDOUT, MODELS, VOCAB, _ids
from bench.corpus import Case

_TINY = dict(
    vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
    intermediate_size=64, max_position_embeddings=64, d_model=32, encoder_layers=2, decoder_layers=2,
    encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, n_embd=32,
    n_layer=2, n_head=2, n_positions=64, num_layers=2, num_heads=2, d_ff=64, ffn_dim=64, pad_token_id=1,
    embedding_size=32, head_dim=16, n_inner=64, rotary_dim=8,
)

# text models taking input_ids and attention_mask
TEXT = (
    "albert", "distilbert", "xlm-roberta", "camembert", "squeezebert", "convbert", "layoutlm", "megatron-bert",
    "gptj", "gpt_neox", "biogpt", "plbart", "gemma", "phi", "stablelm", "starcoder2", "olmo", "persimmon",
    "data2vec-text", "rembert", "ernie", "markuplm", "roc_bert", "mvp",
    "gemma2", "qwen3", "phi3", "granite", "cohere", "mobilebert",
)

# text models added with the diffusers/torch_geometric growth (mixture-of-experts routers among them)
TEXT_MORE = ("olmoe", "granitemoe", "jetmoe", "deberta", "nemotron", "glm4", "helium", "olmo2", "cohere2", "gemma3_text",
             "ernie4_5")

# encoder-decoder models: also decoder_input_ids
SEQ2SEQ = ("pegasus", "marian", "blenderbot", "blenderbot-small", "m2m_100")

# vision models taking pixel_values (3 x 32 x 32)
_VISION_TINY = dict(
    image_size=32, patch_size=8, num_channels=3, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
    intermediate_size=64, embed_dim=16, depths=[1, 1], num_heads=[2, 2], hidden_sizes=[16, 32],
    num_stages=2, window_size=2, embedding_size=16, out_features=None, out_indices=None,
)
VISION = ("vit", "deit", "beit", "swin", "convnext", "resnet", "dinov2", "regnet", "vit_msn", "convnextv2",
          "swinv2", "focalnet")

# Added in the fourth session (new code, split by the same hash: half of it is held out); the
# model types whose tiny config does not build or run were left out before any scan.
TEXT_NEW = ("falcon_mamba", "phimoe", "qwen3_moe", "diffllama", "bitnet", "glm", "lfm2", "smollm3", "arcee",
            "exaone4", "doge")
SEQ2SEQ_NEW = ("longt5", "umt5", "mt5", "pegasus_x")
VISION_NEW = ("efficientnet", "vit_mae", "swiftformer", "vitdet", "ijepa", "mobilenet_v2", "hgnet_v2")

# Added in the seventh session, the same way (the model types that built and ran eagerly from the
# tiny config, checked before any scan; split by the hash, half held out).
TEXT_S7 = ("afmoe", "apertus", "deberta-v2", "ernie4_5_moe", "eurobert", "exaone_moe", "falcon_h1", "flaubert",
           "flex_olmo", "gpt_oss", "granitemoeshared", "hunyuan_v1_dense", "hunyuan_v1_moe", "internlm3", "ministral",
           "modernbert", "nomic_bert", "olmo3", "roberta-prelayernorm", "seed_oss", "vaultgemma", "nanochat",
           "minimax", "glm4_moe", "modernbert-decoder", "bert-generation")
VISION_S7 = ("mobilenet_v1", "dinov2_with_registers", "dinov3_vit", "siglip_vision_model", "clip_vision_model",
             "aimv2_vision_model", "pixio", "mlcd_vision_model")

# Added in the twentieth session, the same way (model types whose names the hash puts in the dev
# half, that built and ran eagerly in eval and train mode from the tiny config, before any scan).
TEXT_S20 = ("aria_text", "gpt-sw3", "granite_swa", "gte", "hy_v3", "hyperclovax", "iquestcoder", "laguna", "mellum",
            "minimax_m2", "nemotron_h", "openai-gpt", "solar_open", "cpmant", "jina_embeddings_v3",
            "muse_glimmer_text", "inkling_text", "cwm", "kolibri1")


def _auto(model_type: str, tiny: dict, inputs):
    def factory(device):
        from transformers import AutoConfig, AutoModel

        config = AutoConfig.for_model(model_type)
        for key, value in tiny.items():
            if hasattr(config, key):
                setattr(config, key, value)
        return AutoModel.from_config(config), *inputs(device)

    return factory


def _text(device):
    input_ids, attention_mask = _ids(device)
    return (input_ids,), {"attention_mask": attention_mask}


def _seq2seq(device):
    input_ids, attention_mask = _ids(device)
    return (input_ids,), {"attention_mask": attention_mask, "decoder_input_ids": input_ids[:, :8]}


def _pixels(device):
    import torch

    return (torch.randn(2, 3, 32, 32, device=device),), {}


def _seen(m: dict) -> Case:
    from bench.accuracy_models import build

    def factory(device, _name=m["name"]):
        model, args, kwargs = build(_name, device)
        return model, args, kwargs

    return Case("transformers", m["name"], factory, seen=True)


CASES: list[Case] = [
    *(_seen(m) for m in [*MODELS, *HELDOUT]),
    *(Case("transformers", t, _auto(t, _TINY, _text)) for t in TEXT),
    *(Case("transformers", t, _auto(t, _TINY, _seq2seq)) for t in SEQ2SEQ),
    *(Case("transformers", t, _auto(t, _TINY, _text)) for t in TEXT_MORE),
    *(Case("transformers", t, _auto(t, _VISION_TINY, _pixels)) for t in VISION),
    *(Case("transformers", t, _auto(t, _TINY, _text)) for t in TEXT_NEW),
    *(Case("transformers", t, _auto(t, _TINY, _seq2seq)) for t in SEQ2SEQ_NEW),
    *(Case("transformers", t, _auto(t, _VISION_TINY, _pixels)) for t in VISION_NEW),
    *(Case("transformers", t, _auto(t, _TINY, _text)) for t in TEXT_S7),
    *(Case("transformers", t, _auto(t, _VISION_TINY, _pixels)) for t in VISION_S7),
    *(Case("transformers", t, _auto(t, _TINY, _text)) for t in TEXT_S20),
]
