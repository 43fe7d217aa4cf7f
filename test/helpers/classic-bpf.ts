/**
 * A tiny classic-BPF interpreter for seccomp programs: runs a program's bytes on a synthetic `struct seccomp_data`
 * and answers what the kernel would (SECCOMP_RET_*). Only what seccomp filters use: loads of 32-bit words from the
 * data, ALU and jumps on constants, returns. Anything else throws, so a test sees a program it cannot read.
 */
export interface SeccompData {
  nr: number;
  arch: number;
  /** Up to six arguments, as 64-bit values. */
  args?: readonly bigint[];
}

const seccompData = ({ nr, arch, args = [] }: SeccompData): Buffer => {
  const data = Buffer.alloc(64);
  data.writeUInt32LE(nr >>> 0, 0);
  data.writeUInt32LE(arch >>> 0, 4);
  args.forEach((arg, i) => data.writeBigUInt64LE(BigInt.asUintN(64, arg), 16 + 8 * i));
  return data;
};

export function runSeccomp(program: Buffer, input: SeccompData): number {
  const data = seccompData(input);
  const count = program.length / 8;
  let a = 0;
  for (let pc = 0; pc < count; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    const jump = (taken: boolean) => {
      pc += taken ? jt : jf;
      if (pc + 1 >= count) throw new Error(`jump out of the program at ${pc}`);
    };
    switch (code) {
      case 0x20: // BPF_LD | BPF_W | BPF_ABS
        if (k % 4 !== 0 || k + 4 > data.length) throw new Error(`bad load offset ${k}`);
        a = data.readUInt32LE(k);
        break;
      case 0x54: // BPF_ALU | BPF_AND | BPF_K
        a = (a & k) >>> 0;
        break;
      case 0x15: // BPF_JMP | BPF_JEQ | BPF_K
        jump(a === k);
        break;
      case 0x25: // BPF_JMP | BPF_JGT | BPF_K
        jump(a > k);
        break;
      case 0x35: // BPF_JMP | BPF_JGE | BPF_K
        jump(a >= k);
        break;
      case 0x45: // BPF_JMP | BPF_JSET | BPF_K
        jump((a & k) !== 0);
        break;
      case 0x05: // BPF_JMP | BPF_JA
        pc += k;
        break;
      case 0x06: // BPF_RET | BPF_K
        return k;
      default:
        throw new Error(`opcode 0x${code.toString(16)} at ${pc} is not one seccomp programs here use`);
    }
  }
  throw new Error('the program ran off its end without returning');
}
