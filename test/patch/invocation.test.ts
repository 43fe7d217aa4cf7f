import { describe, expect, it } from 'vitest';
import { parseInvocation } from '../../src/patch/invocation.js';

const PATCH = '*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch';

describe('parseInvocation', () => {
  it('recognises apply_patch and applypatch with a heredoc, quoted or not', () => {
    expect(parseInvocation(`apply_patch <<'EOF'\n${PATCH}\nEOF`)).toEqual({ patch: PATCH });
    expect(parseInvocation(`applypatch <<"PATCH"\n${PATCH}\nPATCH\n`)).toEqual({ patch: PATCH });
    expect(parseInvocation(`apply_patch <<EOF\n${PATCH}\n\nEOF`)).toEqual({ patch: PATCH });
  });

  it('takes the folder of a leading cd, plain or quoted', () => {
    expect(parseInvocation(`cd sub && apply_patch <<'EOF'\n${PATCH}\nEOF`)).toEqual({ patch: PATCH, cd: 'sub' });
    expect(parseInvocation(`cd 'a b' && apply_patch <<'EOF'\n${PATCH}\nEOF`)?.cd).toBe('a b');
    expect(parseInvocation(`cd "/x y" && apply_patch <<'EOF'\n${PATCH}\nEOF`)?.cd).toBe('/x y');
  });

  it('leaves anything else to the shell', () => {
    for (const cmd of [
      'apply_patch --help',
      `echo hi && apply_patch <<'EOF'\n${PATCH}\nEOF`,
      `cd a; apply_patch <<'EOF'\n${PATCH}\nEOF`,
      `cd a || apply_patch <<'EOF'\n${PATCH}\nEOF`,
      `cd a && cd b && apply_patch <<'EOF'\n${PATCH}\nEOF`,
      `cd a b && apply_patch <<'EOF'\n${PATCH}\nEOF`,
      `apply_patch foo <<'EOF'\n${PATCH}\nEOF`,
      `apply_patch <<'EOF'\n${PATCH}\nEOF\necho done`,
      `apply_patch <<'EOF'\n${PATCH}`,
      `bash -lc "apply_patch <<'EOF'\n${PATCH}\nEOF"`,
    ]) {
      expect(parseInvocation(cmd), cmd).toBeUndefined();
    }
  });
});
