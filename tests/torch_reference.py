"""Plain-torch reference models, written from the architectures' own descriptions (papers, seed notebooks).

Nothing here reads ParamScope's engine: each class spells out the modules a model holds, and the tests
compare ``sum(p.numel() for p in model.parameters())`` (shared tensors counted once, as torch does) with
the engine's tree. Big models are built on the meta device, so no memory is allocated.
"""

from __future__ import annotations

import torch
from torch import nn


def num_parameters(model: nn.Module) -> int:
    """Distinct parameters of ``model`` (a tied weight appears once in ``parameters()``)."""
    return sum(p.numel() for p in model.parameters())


# ------------------------------------------------------------------ the seed notebook's teaching models
class TiedEmbeddingLM(nn.Module):
    """Model1: an embedding whose weight is also the bias-free LM head."""

    def __init__(self, n_vocab: int, emb_dim: int):
        super().__init__()
        self.word_to_embedding = nn.Embedding(n_vocab, emb_dim)
        self.lm_head = nn.Linear(emb_dim, n_vocab, bias=False)
        self.lm_head.weight = self.word_to_embedding.weight


class MLP(nn.Module):
    def __init__(self, emb_dim: int, n_hidden: int):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(emb_dim, n_hidden), nn.ReLU(), nn.Linear(n_hidden, emb_dim))


class FeedForwardLM(nn.Module):
    """Tied embedding -> MLP -> tied head."""

    def __init__(self, n_vocab: int, emb_dim: int, n_hidden: int):
        super().__init__()
        self.word_to_embedding = nn.Embedding(n_vocab, emb_dim)
        self.model = MLP(emb_dim, n_hidden)
        self.lm_head = nn.Linear(emb_dim, n_vocab, bias=False)
        self.lm_head.weight = self.word_to_embedding.weight


class BareBonesSelfAttention(nn.Module):
    """Single-head attention: q, k, v and output projections, each ``Linear(d, d)`` with a bias."""

    def __init__(self, emb_dim: int):
        super().__init__()
        self.get_query = nn.Linear(emb_dim, emb_dim)
        self.get_key = nn.Linear(emb_dim, emb_dim)
        self.get_value = nn.Linear(emb_dim, emb_dim)
        self.to_output = nn.Linear(emb_dim, emb_dim)


class BareBonesTransformerLayer(nn.Module):
    """Attention, LayerNorm, MLP, LayerNorm."""

    def __init__(self, emb_dim: int, dim_feedforward: int):
        super().__init__()
        self.self_attention = BareBonesSelfAttention(emb_dim)
        self.mlp = MLP(emb_dim, dim_feedforward)
        self.norm_after_attn = nn.LayerNorm(emb_dim)
        self.norm_after_mlp = nn.LayerNorm(emb_dim)


class TransformerLM(nn.Module):
    """Token + learned position embeddings, one bare layer, head tied to the token embedding."""

    def __init__(self, n_vocab: int, max_len: int, emb_dim: int, n_hidden: int):
        super().__init__()
        self.word_to_embedding = nn.Embedding(n_vocab, emb_dim)
        self.pos_to_embedding = nn.Embedding(max_len, emb_dim)
        self.model = BareBonesTransformerLayer(emb_dim, n_hidden)
        self.lm_head = nn.Linear(emb_dim, n_vocab, bias=False)
        self.lm_head.weight = self.word_to_embedding.weight


# ------------------------------------------------------------------ the hybrid RNN transformer
class HybridBlock(nn.Module):
    """A bias-free nanoGPT block with three LayerNorms and one ``nn.RNN(1, H)`` per embedding channel."""

    def __init__(self, n_embd: int, n_head: int, recurrent: int):
        super().__init__()
        assert n_embd % n_head == 0
        self.ln_attn = nn.LayerNorm(n_embd, bias=False)
        self.ln_attn2 = nn.LayerNorm(n_embd, bias=False)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=False)  # fused q, k, v
        self.c_proj = nn.Linear(n_embd, n_embd, bias=False)
        self.ln_mlp = nn.LayerNorm(n_embd, bias=False)
        self.c_fc = nn.Linear(n_embd, 4 * n_embd, bias=False)
        self.mlp_proj = nn.Linear(4 * n_embd, n_embd, bias=False)
        self.rnns = nn.ModuleList(nn.RNN(1, recurrent) for _ in range(n_embd))


class HybridRNNTransformer(nn.Module):
    """Token embedding (no position table), blocks, no final norm, head tied to the embedding."""

    def __init__(self, vocab_size: int, n_embd: int, n_layer: int, n_head: int, recurrent: int):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.blocks = nn.ModuleList(HybridBlock(n_embd, n_head, recurrent) for _ in range(n_layer))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight


# ------------------------------------------------------------------ nanoGPT (bias=False)
class NanoBlock(nn.Module):
    def __init__(self, n_embd: int, bias: bool):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd, bias=bias)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=bias)
        self.attn_proj = nn.Linear(n_embd, n_embd, bias=bias)
        self.ln_2 = nn.LayerNorm(n_embd, bias=bias)
        self.c_fc = nn.Linear(n_embd, 4 * n_embd, bias=bias)
        self.mlp_proj = nn.Linear(4 * n_embd, n_embd, bias=bias)


class NanoGPT(nn.Module):
    """karpathy/nanoGPT's GPT: wte, wpe, blocks, ln_f, lm_head tied to wte; ``bias`` switches every bias."""

    def __init__(self, vocab_size: int, block_size: int, n_layer: int, n_embd: int, bias: bool = False):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.h = nn.ModuleList(NanoBlock(n_embd, bias) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd, bias=bias)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight


# ------------------------------------------------------------------ PaLM
class PaLMBlock(nn.Module):
    """PaLM's parallel block: one bias-free LayerNorm feeds multi-query attention and a SwiGLU MLP."""

    def __init__(self, d_model: int, n_heads: int, head_dim: int, d_ff: int):
        super().__init__()
        self.norm = nn.LayerNorm(d_model, bias=False)
        self.q = nn.Linear(d_model, n_heads * head_dim, bias=False)
        self.kv = nn.Linear(d_model, 2 * head_dim, bias=False)  # multi-query: one key and one value head
        self.o = nn.Linear(n_heads * head_dim, d_model, bias=False)
        self.w_gate = nn.Linear(d_model, d_ff, bias=False)
        self.w_up = nn.Linear(d_model, d_ff, bias=False)
        self.w_down = nn.Linear(d_ff, d_model, bias=False)


class PaLM(nn.Module):
    """Shared input/output embedding, RoPE (no parameters), parallel blocks, a final bias-free LayerNorm."""

    def __init__(self, vocab_size: int, d_model: int, n_layers: int, n_heads: int, head_dim: int, d_ff: int):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList(PaLMBlock(d_model, n_heads, head_dim, d_ff) for _ in range(n_layers))
        self.final_norm = nn.LayerNorm(d_model, bias=False)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = self.embed.weight


# ------------------------------------------------------------------ the original Transformer
class OriginalTransformer(nn.Module):
    """Vaswani et al. 2017: post-LN encoder and decoder layers from torch.nn, sinusoidal positions (no
    parameters), one embedding shared by the encoder, the decoder and the pre-softmax projection, and no
    final norms (torch's nn.Transformer would add one per stack; the paper has none)."""

    def __init__(self, vocab_size: int, d_model: int, n_heads: int, d_ff: int, n_layers: int = 6):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.encoder = nn.ModuleList(
            nn.TransformerEncoderLayer(d_model, n_heads, d_ff, batch_first=True) for _ in range(n_layers)
        )
        self.decoder = nn.ModuleList(
            nn.TransformerDecoderLayer(d_model, n_heads, d_ff, batch_first=True) for _ in range(n_layers)
        )
        self.generator = nn.Linear(d_model, vocab_size, bias=False)
        self.generator.weight = self.embed.weight


def on_meta(factory, *args, **kwargs) -> nn.Module:
    """Build a module on the meta device: shapes only, no memory, no initialization cost."""
    with torch.device("meta"):
        return factory(*args, **kwargs)
