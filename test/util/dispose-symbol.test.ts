import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Node before 20.5 has no Symbol.asyncDispose; a fresh vm context has none either, so the module runs in one.
const source = readFileSync(new URL('../../src/util/dispose-symbol.ts', import.meta.url), 'utf8');
const script = ts.transpileModule(source, {
  compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None },
}).outputText;

describe('Symbol.asyncDispose', () => {
  it('is made where the runtime lacks it: the registered symbol TypeScript helpers agree on', () => {
    const context = { exports: {} };
    expect(runInNewContext('typeof Symbol.asyncDispose', context)).toBe('undefined');
    runInNewContext(script, context);
    expect(runInNewContext("Symbol.asyncDispose === Symbol.for('Symbol.asyncDispose')", context)).toBe(true);
  });

  it("is left as it is where the runtime has it (Node's own)", () => {
    const context = { exports: {} };
    runInNewContext("Symbol.asyncDispose = Symbol('the runtime\\'s own')", context);
    runInNewContext(script, context);
    expect(runInNewContext('Symbol.asyncDispose.description', context)).toBe("the runtime's own");
  });
});
