import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's root: the same relative path from src/util/ (tests) and dist/util/ (the build). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

/** Where `npm run build:native` (node-gyp) writes a build of native/ from this checkout or package. */
const BUILD_DIR = join(PACKAGE_ROOT, 'build/Release');

/** The platforms the package carries builds of (scripts/prebuild.sh makes them), each folder named `os-arch`. */
const PREBUILT_PLATFORMS = ['linux-x64', 'linux-arm64'] as const;

/** The folder of this machine's prebuilt binaries, whether or not there are any. */
const prebuildDir = (platform: string = process.platform, arch: string = process.arch): string =>
  join(PACKAGE_ROOT, 'prebuilds', `${platform}-${arch}`);

/**
 * One of our native files (native/ built): a build made here with `npm run build:native` wins, as the newer
 * intent, else the prebuilt one for this platform, else undefined.
 */
export function findNativeFile(file: string): string | undefined {
  return [join(BUILD_DIR, file), join(prebuildDir(), file)].find((path) => existsSync(path));
}

/** How to get `file` when findNativeFile found none, or when the one found cannot run here (`why`). */
export function nativeFileHelp(file: string, why?: string): string {
  const platform = `${process.platform}-${process.arch}`;
  const shipped = (PREBUILT_PLATFORMS as readonly string[]).includes(platform);
  const missing = shipped
    ? `the prebuilt ${file} for ${platform} is missing from ${prebuildDir()}`
    : `unified-exec carries no prebuilt ${file} for ${platform} (only for ${PREBUILT_PLATFORMS.join(', ')} with glibc)`;
  const build = `build it from source with \`cd ${PACKAGE_ROOT} && npm run build:native\` (node-gyp, which needs a C compiler, make and Python)`;
  return `${why ?? missing}: ${build}`;
}
