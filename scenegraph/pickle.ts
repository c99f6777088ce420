/**
 * A Python pickle writer (protocol 4, without framing or memo, which the unpickler does not need) for plain
 * data: dicts with string keys, lists, str, int, float, bool, None, bytes, and numpy arrays. It
 * exists so exports that Python tools load with `pickle.load` (ConceptGraphs' object maps) can be written
 * from Node without a Python process.
 *
 * A numpy array is pickled the way numpy itself does below protocol 5 (checked against numpy 1.24's
 * `pickle.dumps`): `numpy.core.multiarray._reconstruct(numpy.ndarray, (0,), b'b')`, then BUILD with the
 * state `(1, shape, dtype, is_fortran, raw bytes)`; the dtype is `numpy.dtype(code, False, True)` with
 * BUILD state `(3, byteorder, None, None, None, -1, -1, 0)`. numpy 2 still resolves `numpy.core` when
 * unpickling.
 */

/** numpy dtype codes this writer emits, with the typed array that holds each. */
const DTYPES = {
  f8: { array: Float64Array, order: "<" },
  f4: { array: Float32Array, order: "<" },
  i8: { array: BigInt64Array, order: "<" },
  i4: { array: Int32Array, order: "<" },
  u1: { array: Uint8Array, order: "|" },
  b1: { array: Uint8Array, order: "|" },
} as const;
export type NumpyDtype = keyof typeof DTYPES;
type ArrayOf<D extends NumpyDtype> = { f8: Float64Array; f4: Float32Array; i8: BigInt64Array; i4: Int32Array; u1: Uint8Array; b1: Uint8Array }[D];

/** A numpy array: C order, little endian (as typed arrays are on every host Node runs on; checked). */
export class NdArray<D extends NumpyDtype = NumpyDtype> {
  constructor(
    readonly dtype: D,
    readonly shape: readonly number[],
    readonly data: ArrayOf<D>,
  ) {
    const n = shape.reduce((a, b) => a * b, 1);
    if (!(data instanceof DTYPES[dtype].array)) throw new Error(`NdArray: dtype ${dtype} needs a ${DTYPES[dtype].array.name}`);
    if (data.length !== n) throw new Error(`NdArray: shape [${shape.join(", ")}] holds ${n} values, the data ${data.length}`);
  }
}

/**
 * A Python float even when the value is integral. A plain number pickles as an int when it is a safe
 * integer (|n| < 2^53) and as a float otherwise; pass a bigint for a larger int.
 */
export class PyFloat {
  constructor(readonly value: number) {}
}

export type PickleValue = null | boolean | number | bigint | string | Uint8Array | NdArray | PyFloat | PickleValue[] | { [key: string]: PickleValue };

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

// opcodes (CPython Lib/pickle.py)
const OP = {
  PROTO: 0x80,
  STOP: 0x2e,
  NONE: 0x4e,
  NEWTRUE: 0x88,
  NEWFALSE: 0x89,
  BININT1: 0x4b,
  BININT2: 0x4d,
  BININT: 0x4a,
  LONG1: 0x8a,
  BINFLOAT: 0x47,
  SHORT_BINUNICODE: 0x8c,
  BINUNICODE: 0x58,
  SHORT_BINBYTES: 0x43,
  BINBYTES: 0x42,
  EMPTY_DICT: 0x7d,
  EMPTY_LIST: 0x5d,
  EMPTY_TUPLE: 0x29,
  MARK: 0x28,
  SETITEMS: 0x75,
  APPENDS: 0x65,
  TUPLE: 0x74,
  TUPLE1: 0x85,
  TUPLE2: 0x86,
  TUPLE3: 0x87,
  GLOBAL: 0x63,
  REDUCE: 0x52,
  BUILD: 0x62,
} as const;
const PROTOCOL = 4;
/** BINBYTES and BINUNICODE carry a 4-byte length. */
const MAX_CHUNK = 2 ** 32 - 1;

class Writer {
  readonly chunks: Uint8Array[] = [];
  private small: number[] = [];

  byte(...b: number[]): void {
    this.small.push(...b);
  }
  private flush(): void {
    if (this.small.length) this.chunks.push(Uint8Array.from(this.small));
    this.small = [];
  }
  raw(b: Uint8Array): void {
    this.flush();
    this.chunks.push(b);
  }
  u32(n: number): void {
    this.byte(n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255);
  }
  done(): Buffer {
    this.flush();
    return Buffer.concat(this.chunks);
  }
}

function writeInt(w: Writer, v: number | bigint): void {
  if (typeof v === "number" && v >= 0 && v < 256) return w.byte(OP.BININT1, v);
  if (typeof v === "number" && v >= 0 && v < 65536) return w.byte(OP.BININT2, v & 255, v >>> 8);
  if (typeof v === "number" && v >= -(2 ** 31) && v < 2 ** 31) {
    w.byte(OP.BININT);
    return w.u32(v >>> 0);
  }
  // LONG1: little-endian two's complement, as few bytes as hold the sign
  let b = BigInt(v);
  const bytes: number[] = [];
  while (true) {
    const low = Number(b & 255n);
    bytes.push(low);
    b >>= 8n;
    if ((b === 0n && (low & 0x80) === 0) || (b === -1n && (low & 0x80) !== 0)) break;
  }
  w.byte(OP.LONG1, bytes.length, ...bytes);
}

function writeStr(w: Writer, s: string): void {
  const b = Buffer.from(s, "utf8");
  if (b.length < 256) w.byte(OP.SHORT_BINUNICODE, b.length);
  else if (b.length <= MAX_CHUNK) {
    w.byte(OP.BINUNICODE);
    w.u32(b.length);
  } else throw new Error(`pickle: a string of ${b.length} bytes is too long`);
  w.raw(b);
}

function writeBytes(w: Writer, b: Uint8Array): void {
  if (b.length < 256) w.byte(OP.SHORT_BINBYTES, b.length);
  else if (b.length <= MAX_CHUNK) {
    w.byte(OP.BINBYTES);
    w.u32(b.length);
  } else throw new Error(`pickle: ${b.length} bytes are too many for one BINBYTES`);
  w.raw(b);
}

function writeGlobal(w: Writer, module: string, name: string): void {
  w.byte(OP.GLOBAL);
  w.raw(Buffer.from(`${module}\n${name}\n`, "ascii"));
}

function writeTuple(w: Writer, items: readonly PickleValue[]): void {
  if (items.length === 0) return w.byte(OP.EMPTY_TUPLE);
  if (items.length > 3) w.byte(OP.MARK);
  for (const x of items) writeValue(w, x);
  w.byte([OP.TUPLE, OP.TUPLE1, OP.TUPLE2, OP.TUPLE3][items.length > 3 ? 0 : items.length]!);
}

function writeNdArray(w: Writer, a: NdArray): void {
  if (!LITTLE_ENDIAN) throw new Error("pickle: big-endian hosts are not supported");
  writeGlobal(w, "numpy.core.multiarray", "_reconstruct");
  w.byte(OP.MARK);
  writeGlobal(w, "numpy", "ndarray");
  writeTuple(w, [0]);
  writeBytes(w, Uint8Array.of(0x62)); // b"b"
  w.byte(OP.TUPLE, OP.REDUCE);
  // state: (1, shape, dtype, is_fortran, data)
  w.byte(OP.MARK);
  writeInt(w, 1);
  writeTuple(w, a.shape);
  writeGlobal(w, "numpy", "dtype");
  writeTuple(w, [a.dtype, false, true]);
  w.byte(OP.REDUCE);
  writeTuple(w, [3, DTYPES[a.dtype].order, null, null, null, -1, -1, 0]);
  w.byte(OP.BUILD);
  w.byte(OP.NEWFALSE);
  writeBytes(w, new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength));
  w.byte(OP.TUPLE, OP.BUILD);
}

function writeValue(w: Writer, v: PickleValue): void {
  if (v === null) return w.byte(OP.NONE);
  if (v === true) return w.byte(OP.NEWTRUE);
  if (v === false) return w.byte(OP.NEWFALSE);
  if (typeof v === "bigint") return writeInt(w, v);
  if (typeof v === "number" || v instanceof PyFloat) {
    const x = typeof v === "number" ? v : v.value;
    if (typeof v === "number" && Number.isSafeInteger(x)) return writeInt(w, x);
    const b = Buffer.alloc(9);
    b[0] = OP.BINFLOAT;
    b.writeDoubleBE(x, 1);
    return w.raw(b);
  }
  if (typeof v === "string") return writeStr(w, v);
  if (v instanceof Uint8Array) return writeBytes(w, v);
  if (v instanceof NdArray) return writeNdArray(w, v);
  if (Array.isArray(v)) {
    w.byte(OP.EMPTY_LIST);
    if (v.length === 0) return;
    w.byte(OP.MARK);
    for (const x of v) writeValue(w, x);
    return w.byte(OP.APPENDS);
  }
  const entries = Object.entries(v);
  w.byte(OP.EMPTY_DICT);
  if (entries.length === 0) return;
  w.byte(OP.MARK);
  for (const [k, x] of entries) {
    writeStr(w, k);
    writeValue(w, x);
  }
  w.byte(OP.SETITEMS);
}

/** The pickle of `v` (protocol 4): what Python's `pickle.loads` reads back as the same data. */
export function pickle(v: PickleValue): Buffer {
  const w = new Writer();
  w.byte(OP.PROTO, PROTOCOL);
  writeValue(w, v);
  w.byte(OP.STOP);
  return w.done();
}
