import { KERNELS_WASM_BASE64 } from './wasm/kernels.wasm.gen.ts';

/** The exported kernels of kernels.as; pointers are byte offsets into the runtime's memory. */
export interface Kernels {
  matmul(
    c: number,
    a: number,
    b: number,
    bias: number,
    M: number,
    K: number,
    N: number,
    lda: number,
    ldb: number,
    ldc: number,
    accumulate: number,
    causal: number,
  ): void;
  matmulTN(
    c: number,
    a: number,
    b: number,
    M: number,
    K: number,
    N: number,
    lda: number,
    ldb: number,
    ldc: number,
    causal: number,
  ): void;
  transpose(dst: number, src: number, rows: number, cols: number, lds: number, ldd: number): void;
  colSumInto(out: number, x: number, M: number, N: number, ldx: number): void;
  layerNorm(
    y: number,
    x: number,
    g: number,
    b: number,
    mean: number,
    rstd: number,
    M: number,
    D: number,
    eps: number,
  ): void;
  layerNormBackward(
    dx: number,
    dg: number,
    db: number,
    dy: number,
    x: number,
    g: number,
    mean: number,
    rstd: number,
    M: number,
    D: number,
  ): void;
  gelu(y: number, x: number, n: number): void;
  geluBackward(dx: number, dy: number, x: number, n: number): void;
  causalSoftmax(p: number, s: number, T: number, ld: number, scale: number): void;
  causalSoftmaxBackward(ds: number, p: number, dp: number, T: number, ld: number, scale: number): void;
  logSoftmaxPick(lse: number, logprob: number, logits: number, targets: number, M: number, V: number): void;
  logprobBackward(logits: number, lse: number, targets: number, g: number, M: number, V: number): void;
  attendCached(
    out: number,
    q: number,
    kT: number,
    vc: number,
    scratch: number,
    len: number,
    cap: number,
    D: number,
    H: number,
    scale: number,
  ): void;
  /** First byte the host may allocate: below it lie the module's static data. */
  heapBase(): number;
}

/** Values of matmul's `causal` argument (see kernels.as). */
export const CAUSAL = { none: 0, columns: 1, inner: 2 } as const;

const PAGE_BYTES = 65536;

/** The part of the WebAssembly JS API used here (the project's lib settings do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let compiled: object | undefined;

/**
 * One instance of the kernels with its own memory and a bump allocator over it. Long-lived buffers
 * (parameters, gradients, optimizer moments) are allocated first; per-call scratch is allocated after a
 * `mark()` and dropped with `release()`. Views are made on demand because growing the memory detaches
 * earlier ArrayBuffers.
 */
export class WasmRuntime {
  readonly kernels: Kernels;
  private readonly memory: WasmMemory;
  private top: number;

  constructor() {
    compiled ??= new wasm.Module(Buffer.from(KERNELS_WASM_BASE64, 'base64'));
    this.memory = new wasm.Memory({ initial: 16 });
    const instance = new wasm.Instance(compiled, { env: { memory: this.memory } });
    this.kernels = instance.exports as unknown as Kernels;
    this.top = this.kernels.heapBase();
  }

  /** Allocates `floats` 4-byte values, 16-byte aligned, zero-filled; returns the byte pointer. */
  alloc(floats: number): number {
    const ptr = (this.top + 15) & ~15;
    const end = ptr + floats * 4;
    const have = this.memory.buffer.byteLength;
    if (end > have) this.memory.grow(Math.ceil((end - have) / PAGE_BYTES));
    new Uint8Array(this.memory.buffer, ptr, floats * 4).fill(0);
    this.top = end;
    return ptr;
  }

  mark(): number {
    return this.top;
  }

  release(mark: number): void {
    this.top = mark;
  }

  f32(ptr: number, length: number): Float32Array {
    return new Float32Array(this.memory.buffer, ptr, length);
  }

  i32(ptr: number, length: number): Int32Array {
    return new Int32Array(this.memory.buffer, ptr, length);
  }
}
