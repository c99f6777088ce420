/** esbuild bundles CSS files as text (scripts/inspect-client.mjs: loader ".css": "text"). */
declare module "*.css" {
  const text: string;
  export default text;
}
