// `await using` looks up Symbol.asyncDispose when the scope is entered. Node has it from 20.5 (18.18); on 20.0-20.4,
// where package.json's engines still let us run, it is made here, as TypeScript's own helpers and other libraries
// make it: the registered symbol of that name, so that every copy of this code agrees on it.
const symbols = Symbol as unknown as { asyncDispose?: symbol };
symbols.asyncDispose ??= Symbol.for('Symbol.asyncDispose');

export {};
