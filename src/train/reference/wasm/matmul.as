// Matrix products of the reference transformer, in AssemblyScript with 128-bit SIMD; part of kernels.as
// (see its header for pointers, layouts and the causal block convention).

const NONE: i32 = 0;
// C = A·B over a [T, T] score matrix: only columns j below the row block's limit.
const CAUSAL_COLUMNS: i32 = 1;
// C = P·V with P lower-triangular: the sum over k stops at the row block's limit.
const CAUSAL_INNER: i32 = 2;

export function blockLimit(i: i32, n: i32): i32 {
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
