/**
 * Reads what esi3d checks before any work from an ONNX file, without ONNX Runtime and without loading the
 * weights: the graph's inputs and outputs (names, element types, shapes), and where its external weights live
 * (file, offset, length). The file is walked field by field with positioned reads; large fields (node
 * lists, inline weights) are skipped by their length, so a multi-GB self-contained model costs a few reads.
 *
 * Field numbers from onnx/onnx.proto (IR version 8, onnx 1.12): ModelProto {ir_version 1, graph 7,
 * opset_import 8}; GraphProto {initializer 5, input 11, output 12}; TensorProto {name 8, external_data 13,
 * data_location 14}; StringStringEntryProto {key 1, value 2}; ValueInfoProto {name 1, type 2};
 * TypeProto {tensor_type 1}; TypeProto.Tensor {elem_type 1, shape 2}; TensorShapeProto {dim 1};
 * Dimension {dim_value 1, dim_param 2}; OperatorSetIdProto {domain 1, version 2}.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** The file is not a complete ONNX protobuf (truncated, or not ONNX at all). */
export class OnnxFormatError extends Error {}

/** TensorProto.DataType codes to the type names ONNX Runtime's metadata uses. */
const ELEM_TYPES: Record<number, string> = {
  1: "float32",
  2: "uint8",
  3: "int8",
  4: "uint16",
  5: "int16",
  6: "int32",
  7: "int64",
  8: "string",
  9: "bool",
  10: "float16",
  11: "float64",
  12: "uint32",
  13: "uint64",
  16: "bfloat16",
};
/** TensorProto.DataLocation EXTERNAL. */
const DATA_LOCATION_EXTERNAL = 1;
/** Positioned reads are cached in blocks of this size (protobuf headers are read a few bytes at a time). */
const READ_BLOCK = 1 << 16;

interface OnnxValueInfo {
  name: string;
  type?: string;
  /** Dims: a number (dim_value), a string (dim_param) or "?" (unknown). Absent when the shape is. */
  shape?: (number | string)[];
}

interface OnnxExternalTensor {
  tensor: string;
  location: string;
  offset: number;
  /** Bytes of the tensor; null when the graph does not say (then it runs to the end of the file). */
  length: number | null;
}

export interface OnnxGraphInfo {
  irVersion: number | null;
  opset: number | null;
  /** Graph inputs that are not initializers (older exporters list the weights as inputs too). */
  inputs: OnnxValueInfo[];
  outputs: OnnxValueInfo[];
  external: OnnxExternalTensor[];
}

class Reader {
  private block = Buffer.alloc(0);
  private blockAt = -1;
  constructor(
    private readonly fd: number,
    readonly size: number,
  ) {}

  byte(pos: number): number {
    if (pos >= this.size) throw new OnnxFormatError(`ends at byte ${this.size} inside a field (truncated?)`);
    if (this.blockAt < 0 || pos < this.blockAt || pos >= this.blockAt + this.block.length) {
      this.blockAt = pos;
      this.block = Buffer.alloc(Math.min(READ_BLOCK, this.size - pos));
      readSync(this.fd, this.block, 0, this.block.length, pos);
    }
    return this.block[pos - this.blockAt]!;
  }

  bytes(pos: number, n: number): Buffer {
    if (pos + n > this.size) throw new OnnxFormatError(`a field runs to byte ${pos + n}, past the end of the file (${this.size} bytes; truncated?)`);
    const out = Buffer.alloc(n);
    readSync(this.fd, out, 0, n, pos);
    return out;
  }

  varint(pos: number): [number, number] {
    let v = 0,
      mul = 1,
      b: number;
    do {
      b = this.byte(pos++);
      v += (b & 0x7f) * mul;
      mul *= 128;
      if (mul > 2 ** 70) throw new OnnxFormatError("malformed varint");
    } while (b & 0x80);
    return [v, pos];
  }
}

interface Field {
  no: number;
  wire: number;
  /** Varint value, or the length of a length-delimited field. */
  value: number;
  /** Where a length-delimited field's bytes start. */
  at: number;
}

/** The fields of the message occupying [start, end). */
function* fieldsOf(r: Reader, start: number, end: number): Generator<Field> {
  let p = start;
  while (p < end) {
    const [key, q] = r.varint(p);
    const no = Math.floor(key / 8),
      wire = key % 8;
    if (no === 0) throw new OnnxFormatError(`field number 0 at byte ${p}`);
    p = q;
    if (wire === 0) {
      const [v, q2] = r.varint(p);
      p = q2;
      yield { no, wire, value: v, at: p };
    } else if (wire === 2) {
      const [len, q2] = r.varint(p);
      if (q2 + len > end) throw new OnnxFormatError(`field ${no} at byte ${p} runs to byte ${q2 + len}, past its message's end ${end} (truncated?)`);
      yield { no, wire, value: len, at: q2 };
      p = q2 + len;
    } else if (wire === 1 || wire === 5) {
      p += wire === 1 ? 8 : 4;
      if (p > end) throw new OnnxFormatError(`fixed-size field ${no} runs past its message's end (truncated?)`);
    } else throw new OnnxFormatError(`unsupported protobuf wire type ${wire} at byte ${p}`);
  }
}

const text = (r: Reader, f: Field) => r.bytes(f.at, f.value).toString("utf8");

function valueInfo(r: Reader, f: Field): OnnxValueInfo {
  const out: OnnxValueInfo = { name: "" };
  for (const g of fieldsOf(r, f.at, f.at + f.value)) {
    if (g.no === 1 && g.wire === 2) out.name = text(r, g);
    else if (g.no === 2 && g.wire === 2)
      for (const t of fieldsOf(r, g.at, g.at + g.value)) {
        if (t.no !== 1 || t.wire !== 2) continue; // tensor_type
        for (const e of fieldsOf(r, t.at, t.at + t.value)) {
          if (e.no === 1 && e.wire === 0) out.type = ELEM_TYPES[e.value] ?? `onnx-type-${e.value}`;
          else if (e.no === 2 && e.wire === 2) {
            out.shape = [];
            for (const d of fieldsOf(r, e.at, e.at + e.value)) {
              if (d.no !== 1 || d.wire !== 2) continue;
              let dim: number | string = "?";
              for (const x of fieldsOf(r, d.at, d.at + d.value)) {
                if (x.no === 1 && x.wire === 0) dim = x.value;
                else if (x.no === 2 && x.wire === 2) dim = text(r, x);
              }
              out.shape.push(dim);
            }
          }
        }
      }
  }
  return out;
}

function initializer(r: Reader, f: Field): { name: string; external: Omit<OnnxExternalTensor, "tensor"> | null } {
  let name = "",
    location: string | null = null,
    offset = 0,
    length: number | null = null,
    external = false;
  for (const g of fieldsOf(r, f.at, f.at + f.value)) {
    if (g.no === 8 && g.wire === 2) name = text(r, g);
    else if (g.no === 14 && g.wire === 0) external = g.value === DATA_LOCATION_EXTERNAL;
    else if (g.no === 13 && g.wire === 2) {
      let key = "",
        value = "";
      for (const e of fieldsOf(r, g.at, g.at + g.value)) {
        if (e.no === 1 && e.wire === 2) key = text(r, e);
        else if (e.no === 2 && e.wire === 2) value = text(r, e);
      }
      if (key === "location") location = value;
      else if (key === "offset") offset = Number(value);
      else if (key === "length") length = Number(value);
    }
  }
  return { name, external: external && location !== null ? { location, offset, length } : null };
}

/** Reads the graph's I/O and external-data references; throws OnnxFormatError when the file is not complete ONNX. */
export function readOnnxGraph(path: string): OnnxGraphInfo {
  const fd = openSync(path, "r");
  try {
    const r = new Reader(fd, fstatSync(fd).size);
    let irVersion: number | null = null,
      opset: number | null = null,
      graph: Field | null = null;
    for (const f of fieldsOf(r, 0, r.size)) {
      if (f.no === 1 && f.wire === 0) irVersion = f.value;
      else if (f.no === 7 && f.wire === 2) graph = f;
      else if (f.no === 8 && f.wire === 2) {
        let domain = "",
          version: number | null = null;
        for (const g of fieldsOf(r, f.at, f.at + f.value)) {
          if (g.no === 1 && g.wire === 2) domain = text(r, g);
          else if (g.no === 2 && g.wire === 0) version = g.value;
        }
        if (domain === "" || domain === "ai.onnx") opset = version;
      }
    }
    if (!graph) throw new OnnxFormatError("no graph in the file (not an ONNX model, or truncated before its graph)");
    const inputs: OnnxValueInfo[] = [],
      outputs: OnnxValueInfo[] = [],
      external: OnnxExternalTensor[] = [];
    const inits = new Set<string>();
    for (const f of fieldsOf(r, graph.at, graph.at + graph.value)) {
      if (f.wire !== 2) continue;
      if (f.no === 11) inputs.push(valueInfo(r, f));
      else if (f.no === 12) outputs.push(valueInfo(r, f));
      else if (f.no === 5) {
        const t = initializer(r, f);
        inits.add(t.name);
        if (t.external) external.push({ tensor: t.name, ...t.external });
      }
    }
    return { irVersion, opset, inputs: inputs.filter((i) => !inits.has(i.name)), outputs, external };
  } finally {
    closeSync(fd);
  }
}
