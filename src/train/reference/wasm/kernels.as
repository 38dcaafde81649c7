// Float32 compute kernels of the reference transformer, in AssemblyScript with 128-bit SIMD.
//
// Compiled by build-kernels.ts into kernels.wasm.gen.ts; this file keeps a non-.ts extension so that
// tsc and biome, which check the Node sources, leave it alone. All pointers are byte offsets into the
// imported memory; matrices are row-major with explicit leading dimensions (elements per row), so a
// head's slice of a [T, 3·d] qkv matrix can be used in place. Every N that reaches a SIMD loop must be
// a multiple of 4 (the model config enforces d, head size and vocabulary size accordingly).
//
// Causal attention works on 4-row blocks: row i belongs to the block starting at i & ~3, and every
// kernel agrees that the block may touch columns j < min(T, (i & ~3) + 4). The scores kernel computes
// exactly those, the softmax writes zeros between the diagonal and that limit, and the products with
// P or dS read nothing beyond it — so no kernel ever reads an unwritten entry.

const NONE: i32 = 0;
// C = A·B over a [T, T] score matrix: only columns j below the row block's limit.
const CAUSAL_COLUMNS: i32 = 1;
// C = P·V with P lower-triangular: the sum over k stops at the row block's limit.
const CAUSAL_INNER: i32 = 2;

function blockLimit(i: i32, n: i32): i32 {
  const l = (i & ~3) + 4;
  return l < n ? l : n;
}

/**
 * C[M,N] = A[M,K]·B[K,N] (+ C when accumulate) (+ bias[N] when bias != 0).
 * causal: NONE, CAUSAL_COLUMNS (limit on N) or CAUSAL_INNER (limit on K), both with the block limit.
 */
export function matmul(
  c: usize, a: usize, b: usize, bias: usize,
  M: i32, K: i32, N: i32, lda: i32, ldb: i32, ldc: i32,
  accumulate: i32, causal: i32,
): void {
  const M4 = M & ~3;
  for (let i = 0; i < M4; i += 4) {
    const nEnd = causal == CAUSAL_COLUMNS ? blockLimit(i, N) : N;
    const kEnd = causal == CAUSAL_INNER ? blockLimit(i, K) : K;
    rows4(c, a, b, bias, i, kEnd, nEnd, lda, ldb, ldc, accumulate);
  }
  for (let i = M4; i < M; i++) {
    const nEnd = causal == CAUSAL_COLUMNS ? blockLimit(i, N) : N;
    const kEnd = causal == CAUSAL_INNER ? blockLimit(i, K) : K;
    row1(c, a, b, bias, i, kEnd, nEnd, lda, ldb, ldc, accumulate);
  }
}

// Four rows of C, eight columns at a time (eight accumulators), then a four-column tail.
function rows4(
  c: usize, a: usize, b: usize, bias: usize, i: i32,
  K: i32, N: i32, lda: i32, ldb: i32, ldc: i32, accumulate: i32,
): void {
  const a0 = a + (<usize>i * <usize>lda << 2);
  const a1 = a0 + (<usize>lda << 2);
  const a2 = a1 + (<usize>lda << 2);
  const a3 = a2 + (<usize>lda << 2);
  const rs = <usize>ldc << 2;
  const bs = <usize>ldb << 2;
  let j = 0;
  for (; j + 8 <= N; j += 8) {
    const cp = c + ((<usize>i * <usize>ldc + <usize>j) << 2);
    let c00 = f32x4.splat(0), c01 = f32x4.splat(0), c10 = f32x4.splat(0), c11 = f32x4.splat(0);
    let c20 = f32x4.splat(0), c21 = f32x4.splat(0), c30 = f32x4.splat(0), c31 = f32x4.splat(0);
    if (accumulate) {
      c00 = v128.load(cp); c01 = v128.load(cp, 16);
      c10 = v128.load(cp + rs); c11 = v128.load(cp + rs, 16);
      c20 = v128.load(cp + 2 * rs); c21 = v128.load(cp + 2 * rs, 16);
      c30 = v128.load(cp + 3 * rs); c31 = v128.load(cp + 3 * rs, 16);
    }
    let bp = b + (<usize>j << 2);
    for (let k = 0; k < K; k++) {
      const b0 = v128.load(bp);
      const b1 = v128.load(bp, 16);
      const ko = <usize>k << 2;
      const x0 = v128.load32_splat(a0 + ko);
      const x1 = v128.load32_splat(a1 + ko);
      const x2 = v128.load32_splat(a2 + ko);
      const x3 = v128.load32_splat(a3 + ko);
      c00 = f32x4.add(c00, f32x4.mul(x0, b0)); c01 = f32x4.add(c01, f32x4.mul(x0, b1));
      c10 = f32x4.add(c10, f32x4.mul(x1, b0)); c11 = f32x4.add(c11, f32x4.mul(x1, b1));
      c20 = f32x4.add(c20, f32x4.mul(x2, b0)); c21 = f32x4.add(c21, f32x4.mul(x2, b1));
      c30 = f32x4.add(c30, f32x4.mul(x3, b0)); c31 = f32x4.add(c31, f32x4.mul(x3, b1));
      bp += bs;
    }
    if (bias) {
      const bb0 = v128.load(bias + (<usize>j << 2));
      const bb1 = v128.load(bias + (<usize>j << 2), 16);
      c00 = f32x4.add(c00, bb0); c01 = f32x4.add(c01, bb1);
      c10 = f32x4.add(c10, bb0); c11 = f32x4.add(c11, bb1);
      c20 = f32x4.add(c20, bb0); c21 = f32x4.add(c21, bb1);
      c30 = f32x4.add(c30, bb0); c31 = f32x4.add(c31, bb1);
    }
    v128.store(cp, c00); v128.store(cp, c01, 16);
    v128.store(cp + rs, c10); v128.store(cp + rs, c11, 16);
    v128.store(cp + 2 * rs, c20); v128.store(cp + 2 * rs, c21, 16);
    v128.store(cp + 3 * rs, c30); v128.store(cp + 3 * rs, c31, 16);
  }
  for (; j < N; j += 4) {
    const cp = c + ((<usize>i * <usize>ldc + <usize>j) << 2);
    let c0 = f32x4.splat(0), c1 = f32x4.splat(0), c2 = f32x4.splat(0), c3 = f32x4.splat(0);
    if (accumulate) {
      c0 = v128.load(cp); c1 = v128.load(cp + rs); c2 = v128.load(cp + 2 * rs); c3 = v128.load(cp + 3 * rs);
    }
    let bp = b + (<usize>j << 2);
    for (let k = 0; k < K; k++) {
      const b0 = v128.load(bp);
      const ko = <usize>k << 2;
      c0 = f32x4.add(c0, f32x4.mul(v128.load32_splat(a0 + ko), b0));
      c1 = f32x4.add(c1, f32x4.mul(v128.load32_splat(a1 + ko), b0));
      c2 = f32x4.add(c2, f32x4.mul(v128.load32_splat(a2 + ko), b0));
      c3 = f32x4.add(c3, f32x4.mul(v128.load32_splat(a3 + ko), b0));
      bp += bs;
    }
    if (bias) {
      const bb = v128.load(bias + (<usize>j << 2));
      c0 = f32x4.add(c0, bb); c1 = f32x4.add(c1, bb); c2 = f32x4.add(c2, bb); c3 = f32x4.add(c3, bb);
    }
    v128.store(cp, c0); v128.store(cp + rs, c1); v128.store(cp + 2 * rs, c2); v128.store(cp + 3 * rs, c3);
  }
}

function row1(
  c: usize, a: usize, b: usize, bias: usize, i: i32,
  K: i32, N: i32, lda: i32, ldb: i32, ldc: i32, accumulate: i32,
): void {
  const a0 = a + (<usize>i * <usize>lda << 2);
  const bs = <usize>ldb << 2;
  for (let j = 0; j < N; j += 4) {
    const cp = c + ((<usize>i * <usize>ldc + <usize>j) << 2);
    let c0 = accumulate ? v128.load(cp) : f32x4.splat(0);
    let bp = b + (<usize>j << 2);
    for (let k = 0; k < K; k++) {
      c0 = f32x4.add(c0, f32x4.mul(v128.load32_splat(a0 + (<usize>k << 2)), v128.load(bp)));
      bp += bs;
    }
    if (bias) c0 = f32x4.add(c0, v128.load(bias + (<usize>j << 2)));
    v128.store(cp, c0);
  }
}

/**
 * C[K,N] += Σ_m A[m,k]·B[m,n] (C += Aᵀ·B): weight gradients, and dV = Pᵀ·dO, dK = dSᵀ·Q.
 * causal: when A is a causal P or dS, column k of A is zero above row k, so the sum starts at the
 * first row of k's block (entries there are written, see the header).
 */
export function matmulTN(
  c: usize, a: usize, b: usize,
  M: i32, K: i32, N: i32, lda: i32, ldb: i32, ldc: i32, causal: i32,
): void {
  const as = <usize>lda << 2;
  const bs = <usize>ldb << 2;
  const rs = <usize>ldc << 2;
  for (let k = 0; k < K; k += 4) {
    const rows = K - k < 4 ? K - k : 4;
    const m0 = causal ? k : 0;
    let j = 0;
    if (rows == 4) {
      for (; j + 8 <= N; j += 8) {
        tn4x8(
          c + ((<usize>k * <usize>ldc + <usize>j) << 2),
          a + ((<usize>m0 * <usize>lda + <usize>k) << 2),
          b + ((<usize>m0 * <usize>ldb + <usize>j) << 2),
          M - m0, as, bs, rs,
        );
      }
    }
    for (; j < N; j += 4) {
      const cp = c + ((<usize>k * <usize>ldc + <usize>j) << 2);
      let c0 = v128.load(cp);
      let c1 = rows > 1 ? v128.load(cp + rs) : f32x4.splat(0);
      let c2 = rows > 2 ? v128.load(cp + 2 * rs) : f32x4.splat(0);
      let c3 = rows > 3 ? v128.load(cp + 3 * rs) : f32x4.splat(0);
      let ap = a + ((<usize>m0 * <usize>lda + <usize>k) << 2);
      let bp = b + ((<usize>m0 * <usize>ldb + <usize>j) << 2);
      for (let m = m0; m < M; m++) {
        const b0 = v128.load(bp);
        c0 = f32x4.add(c0, f32x4.mul(v128.load32_splat(ap), b0));
        if (rows > 1) c1 = f32x4.add(c1, f32x4.mul(v128.load32_splat(ap + 4), b0));
        if (rows > 2) c2 = f32x4.add(c2, f32x4.mul(v128.load32_splat(ap + 8), b0));
        if (rows > 3) c3 = f32x4.add(c3, f32x4.mul(v128.load32_splat(ap + 12), b0));
        ap += as;
        bp += bs;
      }
      v128.store(cp, c0);
      if (rows > 1) v128.store(cp + rs, c1);
      if (rows > 2) v128.store(cp + 2 * rs, c2);
      if (rows > 3) v128.store(cp + 3 * rs, c3);
    }
  }
}

// A 4×8 block of C += Aᵀ·B over `count` rows of A and B: eight accumulators, as in rows4.
function tn4x8(cp: usize, ap: usize, bp: usize, count: i32, as: usize, bs: usize, rs: usize): void {
  let c00 = v128.load(cp), c01 = v128.load(cp, 16);
  let c10 = v128.load(cp + rs), c11 = v128.load(cp + rs, 16);
  let c20 = v128.load(cp + 2 * rs), c21 = v128.load(cp + 2 * rs, 16);
  let c30 = v128.load(cp + 3 * rs), c31 = v128.load(cp + 3 * rs, 16);
  for (let m = 0; m < count; m++) {
    const b0 = v128.load(bp);
    const b1 = v128.load(bp, 16);
    const x0 = v128.load32_splat(ap);
    const x1 = v128.load32_splat(ap + 4);
    const x2 = v128.load32_splat(ap + 8);
    const x3 = v128.load32_splat(ap + 12);
    c00 = f32x4.add(c00, f32x4.mul(x0, b0)); c01 = f32x4.add(c01, f32x4.mul(x0, b1));
    c10 = f32x4.add(c10, f32x4.mul(x1, b0)); c11 = f32x4.add(c11, f32x4.mul(x1, b1));
    c20 = f32x4.add(c20, f32x4.mul(x2, b0)); c21 = f32x4.add(c21, f32x4.mul(x2, b1));
    c30 = f32x4.add(c30, f32x4.mul(x3, b0)); c31 = f32x4.add(c31, f32x4.mul(x3, b1));
    ap += as;
    bp += bs;
  }
  v128.store(cp, c00); v128.store(cp, c01, 16);
  v128.store(cp + rs, c10); v128.store(cp + rs, c11, 16);
  v128.store(cp + 2 * rs, c20); v128.store(cp + 2 * rs, c21, 16);
  v128.store(cp + 3 * rs, c30); v128.store(cp + 3 * rs, c31, 16);
}

/** dst[c, r] = src[r, c] for a [rows, cols] block; lds/ldd are the leading dimensions. */
export function transpose(dst: usize, src: usize, rows: i32, cols: i32, lds: i32, ldd: i32): void {
  for (let r = 0; r < rows; r++) {
    const sp = src + (<usize>r * <usize>lds << 2);
    for (let c = 0; c < cols; c++) {
      store<f32>(dst + ((<usize>c * <usize>ldd + <usize>r) << 2), load<f32>(sp + (<usize>c << 2)));
    }
  }
}

/** C[M,N] += A[M,N] elementwise over rows with leading dimensions lda/ldc (N a multiple of 4). */
export function addInto(c: usize, a: usize, M: i32, N: i32, lda: i32, ldc: i32): void {
  for (let i = 0; i < M; i++) {
    const cp = c + (<usize>i * <usize>ldc << 2);
    const ap = a + (<usize>i * <usize>lda << 2);
    for (let j = 0; j < N; j += 4) {
      const o = <usize>j << 2;
      v128.store(cp + o, f32x4.add(v128.load(cp + o), v128.load(ap + o)));
    }
  }
}

/** out[n] += Σ_m x[m, n]: bias gradients. */
export function colSumInto(out: usize, x: usize, M: i32, N: i32, ldx: i32): void {
  for (let j = 0; j < N; j += 4) {
    let s = v128.load(out + (<usize>j << 2));
    let p = x + (<usize>j << 2);
    for (let m = 0; m < M; m++) {
      s = f32x4.add(s, v128.load(p));
      p += <usize>ldx << 2;
    }
    v128.store(out + (<usize>j << 2), s);
  }
}

/** y = (x − mean)·rstd·g + b per row; keeps mean and rstd per row for the backward pass. */
export function layerNorm(
  y: usize, x: usize, g: usize, b: usize, mean: usize, rstd: usize, M: i32, D: i32, eps: f32,
): void {
  for (let i = 0; i < M; i++) {
    const xp = x + (<usize>i * <usize>D << 2);
    const yp = y + (<usize>i * <usize>D << 2);
    let s: f32 = 0;
    for (let j = 0; j < D; j++) s += load<f32>(xp + (<usize>j << 2));
    const mu = s / <f32>D;
    let v: f32 = 0;
    for (let j = 0; j < D; j++) {
      const d = load<f32>(xp + (<usize>j << 2)) - mu;
      v += d * d;
    }
    const r = <f32>1 / Mathf.sqrt(v / <f32>D + eps);
    for (let j = 0; j < D; j++) {
      const o = <usize>j << 2;
      store<f32>(yp + o, (load<f32>(xp + o) - mu) * r * load<f32>(g + o) + load<f32>(b + o));
    }
    store<f32>(mean + (<usize>i << 2), mu);
    store<f32>(rstd + (<usize>i << 2), r);
  }
}

/**
 * Backward of layerNorm: dx += g·rstd·(dy − mean(dy·g) − x̂·mean(dy·g·x̂)), dg += Σ dy·x̂, db += Σ dy.
 * dx accumulates because it is the residual stream's gradient.
 */
export function layerNormBackward(
  dx: usize, dg: usize, db: usize, dy: usize, x: usize, g: usize, mean: usize, rstd: usize, M: i32, D: i32,
): void {
  for (let i = 0; i < M; i++) {
    const row = <usize>i * <usize>D << 2;
    const mu = load<f32>(mean + (<usize>i << 2));
    const r = load<f32>(rstd + (<usize>i << 2));
    let s1: f32 = 0;
    let s2: f32 = 0;
    for (let j = 0; j < D; j++) {
      const o = <usize>j << 2;
      const xh = (load<f32>(x + row + o) - mu) * r;
      const dyg = load<f32>(dy + row + o) * load<f32>(g + o);
      s1 += dyg;
      s2 += dyg * xh;
    }
    s1 /= <f32>D;
    s2 /= <f32>D;
    for (let j = 0; j < D; j++) {
      const o = <usize>j << 2;
      const xh = (load<f32>(x + row + o) - mu) * r;
      const d = load<f32>(dy + row + o);
      store<f32>(dg + o, load<f32>(dg + o) + d * xh);
      store<f32>(db + o, load<f32>(db + o) + d);
      store<f32>(dx + row + o, load<f32>(dx + row + o) + r * (d * load<f32>(g + o) - s1 - xh * s2));
    }
  }
}

// GELU, tanh approximation (GPT-2): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
const GELU_C: f32 = 0.7978845608028654;

export function gelu(y: usize, x: usize, n: i32): void {
  for (let i = 0; i < n; i++) {
    const o = <usize>i << 2;
    const v = load<f32>(x + o);
    store<f32>(y + o, <f32>0.5 * v * (<f32>1 + Mathf.tanh(GELU_C * (v + <f32>0.044715 * v * v * v))));
  }
}

/** dx = dy·gelu'(x). */
export function geluBackward(dx: usize, dy: usize, x: usize, n: i32): void {
  for (let i = 0; i < n; i++) {
    const o = <usize>i << 2;
    const v = load<f32>(x + o);
    const t = Mathf.tanh(GELU_C * (v + <f32>0.044715 * v * v * v));
    const dt = (<f32>1 - t * t) * GELU_C * (<f32>1 + <f32>0.134145 * v * v);
    store<f32>(dx + o, load<f32>(dy + o) * (<f32>0.5 * (<f32>1 + t) + <f32>0.5 * v * dt));
  }
}

/** P[i, j≤i] = softmax_j(scale·S[i, j]); zeros from the diagonal to the block limit. In place is fine. */
export function causalSoftmax(p: usize, s: usize, T: i32, ld: i32, scale: f32): void {
  for (let i = 0; i < T; i++) {
    const sp = s + (<usize>i * <usize>ld << 2);
    const pp = p + (<usize>i * <usize>ld << 2);
    let mx: f32 = -Infinity;
    for (let j = 0; j <= i; j++) mx = max(mx, load<f32>(sp + (<usize>j << 2)));
    let z: f32 = 0;
    for (let j = 0; j <= i; j++) {
      const e = Mathf.exp(scale * (load<f32>(sp + (<usize>j << 2)) - mx));
      store<f32>(pp + (<usize>j << 2), e);
      z += e;
    }
    const inv = <f32>1 / z;
    for (let j = 0; j <= i; j++) store<f32>(pp + (<usize>j << 2), load<f32>(pp + (<usize>j << 2)) * inv);
    const lim = blockLimit(i, T);
    for (let j = i + 1; j < lim; j++) store<f32>(pp + (<usize>j << 2), 0);
  }
}

/** dS[i, j] = scale·P[i, j]·(dP[i, j] − Σ_k P[i, k]·dP[i, k]) up to the block limit. In place on dP. */
export function causalSoftmaxBackward(ds: usize, p: usize, dp: usize, T: i32, ld: i32, scale: f32): void {
  for (let i = 0; i < T; i++) {
    const row = <usize>i * <usize>ld << 2;
    let dot: f32 = 0;
    for (let j = 0; j <= i; j++) {
      const o = row + (<usize>j << 2);
      dot += load<f32>(p + o) * load<f32>(dp + o);
    }
    const lim = blockLimit(i, T);
    for (let j = 0; j < lim; j++) {
      const o = row + (<usize>j << 2);
      store<f32>(ds + o, scale * load<f32>(p + o) * (load<f32>(dp + o) - dot));
    }
  }
}

/**
 * Per row of logits [M, V]: lse[i] = log Σ_v exp(logits[i, v]) and, when targets != 0,
 * logprob[i] = logits[i, targets[i]] − lse[i] (targets are i32).
 */
export function logSoftmaxPick(lse: usize, logprob: usize, logits: usize, targets: usize, M: i32, V: i32): void {
  for (let i = 0; i < M; i++) {
    const lp = logits + (<usize>i * <usize>V << 2);
    let mx: f32 = -Infinity;
    for (let v = 0; v < V; v++) mx = max(mx, load<f32>(lp + (<usize>v << 2)));
    let z: f32 = 0;
    for (let v = 0; v < V; v++) z += Mathf.exp(load<f32>(lp + (<usize>v << 2)) - mx);
    const l = mx + Mathf.log(z);
    store<f32>(lse + (<usize>i << 2), l);
    if (targets) {
      const t = load<i32>(targets + (<usize>i << 2));
      store<f32>(logprob + (<usize>i << 2), load<f32>(lp + (<usize>t << 2)) - l);
    }
  }
}

/**
 * Gradient of Σ_i L_i(logprob_i) with respect to the logits, given g[i] = dL_i/dlogprob_i:
 * dlogits[i, v] = g[i]·(1[v = target_i] − softmax(logits[i])_v). Written over logits in place.
 */
export function logprobBackward(logits: usize, lse: usize, targets: usize, g: usize, M: i32, V: i32): void {
  for (let i = 0; i < M; i++) {
    const lp = logits + (<usize>i * <usize>V << 2);
    const gi = load<f32>(g + (<usize>i << 2));
    const l = load<f32>(lse + (<usize>i << 2));
    for (let v = 0; v < V; v++) {
      const o = <usize>v << 2;
      store<f32>(lp + o, -gi * Mathf.exp(load<f32>(lp + o) - l));
    }
    const t = <usize>load<i32>(targets + (<usize>i << 2)) << 2;
    store<f32>(lp + t, load<f32>(lp + t) + gi);
  }
}

/**
 * One new token's attention over a KV cache: for each head h, out_h = Σ_{j<len} softmax_j(scale·q_h·k_j)·v_j.
 * q and out are [D] (heads side by side); keys are stored transposed, kT [D, cap], so that scores for four
 * positions come from one SIMD product per dimension; values are vc [len, D]. cap is a multiple of 4 and
 * scratch holds cap floats.
 */
export function attendCached(
  out: usize, q: usize, kT: usize, vc: usize, scratch: usize, len: i32, cap: i32, D: i32, H: i32, scale: f32,
): void {
  const dh = D / H;
  const rs = <usize>D << 2;
  const ks = <usize>cap << 2;
  for (let h = 0; h < H; h++) {
    const ho = <usize>(h * dh) << 2;
    for (let j = 0; j < len; j += 4) {
      let acc = f32x4.splat(0);
      let kp = kT + <usize>(h * dh) * ks + (<usize>j << 2);
      for (let d = 0; d < dh; d++) {
        acc = f32x4.add(acc, f32x4.mul(v128.load32_splat(q + ho + (<usize>d << 2)), v128.load(kp)));
        kp += ks;
      }
      v128.store(scratch + (<usize>j << 2), f32x4.mul(acc, f32x4.splat(scale)));
    }
    let mx: f32 = -Infinity;
    for (let j = 0; j < len; j++) mx = max(mx, load<f32>(scratch + (<usize>j << 2)));
    let z: f32 = 0;
    for (let j = 0; j < len; j++) {
      const e = Mathf.exp(load<f32>(scratch + (<usize>j << 2)) - mx);
      store<f32>(scratch + (<usize>j << 2), e);
      z += e;
    }
    const inv = <f32>1 / z;
    for (let j = 0; j < len; j++) store<f32>(scratch + (<usize>j << 2), load<f32>(scratch + (<usize>j << 2)) * inv);
    // Sixteen dimensions (four accumulators) per pass over the positions.
    for (let d = 0; d < dh; d += 16) {
      const n = dh - d < 16 ? dh - d : 16;
      let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
      let vp = vc + ho + (<usize>d << 2);
      for (let j = 0; j < len; j++) {
        const w = v128.load32_splat(scratch + (<usize>j << 2));
        a0 = f32x4.add(a0, f32x4.mul(w, v128.load(vp)));
        if (n > 4) a1 = f32x4.add(a1, f32x4.mul(w, v128.load(vp, 16)));
        if (n > 8) a2 = f32x4.add(a2, f32x4.mul(w, v128.load(vp, 32)));
        if (n > 12) a3 = f32x4.add(a3, f32x4.mul(w, v128.load(vp, 48)));
        vp += rs;
      }
      const op = out + ho + (<usize>d << 2);
      v128.store(op, a0);
      if (n > 4) v128.store(op, a1, 16);
      if (n > 8) v128.store(op, a2, 32);
      if (n > 12) v128.store(op, a3, 48);
    }
  }
}

/** First byte after the module's static data (the math functions' tables): the host allocates above it. */
export function heapBase(): usize {
  return __heap_base;
}
