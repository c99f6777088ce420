// Runs before `tsc`: compiles the AssemblyScript kernels under scenegraph/primitives/wasm/ to WebAssembly
// next to their sources (so the TypeScript sources, as vitest runs them, find them) and into dist/.
import { copyFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import asc from "assemblyscript/asc";

process.chdir(fileURLToPath(new URL("..", import.meta.url))); // paths below are relative to the repository

const KERNELS = ["scenegraph/primitives/wasm/knnKernel"];
// -O3, no runtime (the kernels allocate nothing), no assertions, the memory comes from the host,
// 128-bit SIMD (in every Node since 16).
const FLAGS = ["-O3", "--runtime", "stub", "--noAssert", "--importMemory", "--enable", "simd"];

for (const kernel of KERNELS) {
  const { error, stderr } = await asc.main([`${kernel}.ts`, ...FLAGS, "--outFile", `${kernel}.wasm`]);
  if (error) {
    process.stderr.write(stderr.toString());
    throw new Error(`asc failed on ${kernel}.ts: ${error.message}`);
  }
  mkdirSync(new URL(`../dist/${kernel.slice(0, kernel.lastIndexOf("/"))}`, import.meta.url), { recursive: true });
  copyFileSync(new URL(`../${kernel}.wasm`, import.meta.url), new URL(`../dist/${kernel}.wasm`, import.meta.url));
}
