// Compiles TestToken.sol with solc-js; prints {"bytecode": "0x…"} (the deployment code).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";

const here = dirname(fileURLToPath(import.meta.url));
const input = {
  language: "Solidity",
  sources: { "TestToken.sol": { content: readFileSync(join(here, "TestToken.sol"), "utf8") } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    // Paris: no PUSH0 or newer opcodes, so any EVM chain runs it.
    evmVersion: "paris",
    outputSelection: { "*": { "*": ["evm.bytecode.object"] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors || []).filter((e) => e.severity === "error");
if (errors.length) {
  console.error(errors.map((e) => e.formattedMessage).join("\n"));
  process.exit(1);
}
const code = out.contracts["TestToken.sol"].TestToken.evm.bytecode.object;
console.log(JSON.stringify({ bytecode: "0x" + code }));
