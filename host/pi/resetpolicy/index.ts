// The extension's entry, in a folder of the product's name: Pi lists an
// extension loaded from a path by the folder its index.ts is in, so the
// entry in src/ was listed as "src". The code stays in src/.
export { default } from "../src/index.ts";
