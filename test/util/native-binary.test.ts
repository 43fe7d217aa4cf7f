import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, findNativeFile, nativeFileHelp } from '../../src/util/native-binary.js';

describe('our native files', () => {
  it('are found for this machine, built here or prebuilt', () => {
    expect(findNativeFile('unified-exec-sandbox-exec')).toMatch(
      new RegExp(`^${PACKAGE_ROOT}/(build/Release|prebuilds/linux-${process.arch})/unified-exec-sandbox-exec$`),
    );
    expect(findNativeFile('no-such-file')).toBeUndefined();
  });

  it('when missing, say which and give the command that builds them', () => {
    expect(nativeFileHelp('x.node')).toMatch(
      new RegExp(`x\\.node .*: build it from source with \`cd ${PACKAGE_ROOT} && npm run build:native\` \\(node-gyp`),
    );
    expect(nativeFileHelp('x.node', 'it does not load here')).toMatch(/^it does not load here: build it from source/);
  });
});
