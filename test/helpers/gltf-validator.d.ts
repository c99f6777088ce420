// The part of the Khronos glTF validator's npm API (gltf-validator 2.0.0-dev.3.10, README "Basic usage")
// the GLB test uses: it ships no type declarations.
declare module "gltf-validator" {
  interface ValidatorMessage {
    code: string;
    message: string;
    /** 0 error, 1 warning, 2 information, 3 hint. */
    severity: number;
    pointer?: string;
  }
  export function validateBytes(data: Uint8Array): Promise<{ issues: { numErrors: number; numWarnings: number; messages: ValidatorMessage[] } }>;
}
