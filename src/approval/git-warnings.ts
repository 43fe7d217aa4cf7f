/**
 * The approval form's warnings about git for a command let out of the sandbox: each repository git would read (where
 * the command runs or points it, and beneath its work tree) and each config file or program folder it would read,
 * that commands in the sandbox could have written, and each setting the command gives git itself. Their config
 * (core.fsmonitor, core.pager, aliases …) and hooks run programs, outside the sandbox once the command is let out.
 * The rules ask the file system through GitFacts, so they are tested on plain data.
 */
import { dirname } from 'node:path';
import { isInside } from '../sandbox/policy.js';
import { writableRootOf } from '../spawn/leave-sandbox.js';
import { gitPlaces, type GitPlace } from './git-places.js';
import {
  MAX_FOLDERS_WALKED,
  findRepository,
  nestedRepositories,
  newWalk,
  plantableFolder,
  type GitFacts,
  type Repository,
  type Walk,
} from './git-repository.js';

const RUNS = 'so the agent may have set programs for git to run (core.fsmonitor, hooks).';

/**
 * The form's warnings for `argv` in `cwd` with `env` (gitPlaces reads what it names): for a repository git reads
 * from a folder the command runs in or names, or may visit beneath a work tree (a submodule), whose folder or common
 * folder the sandbox could have written; for a config file or program folder in a writable root that git reads where
 * the command points it; for config the command gives git; and when a command naming git picks a folder only as it
 * runs, or the look-up ran out of folders to look at.
 */
export function repositoryWarnings(
  argv: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>>,
  roots: readonly string[],
  facts: GitFacts,
): string[] {
  const { places, configs, settings, atRunTime, namesGit } = gitPlaces(argv, cwd, env);
  const warnings: string[] = [];
  const seen = new Set<string>();
  const walk = newWalk();
  const unwalked: string[] = [];
  const workTrees: { top: string; place: GitPlace }[] = [];
  const warn = (place: GitPlace, repository: Repository, how: string): void => {
    if (seen.has(repository.gitDir)) return;
    seen.add(repository.gitDir);
    const plantable = plantableFolder(repository, roots, facts);
    if (plantable === undefined) return;
    warnings.push(
      `Warning: git ${where(place)} ${how} ${shown(repository, plantable.folder)}, which lies in ${plantable.root}: commands in the sandbox can write its config and hooks, ${RUNS}`,
    );
  };
  for (const place of places) {
    const repository = findRepository(place.folder, facts, walk);
    if (repository === undefined) unwalked.push(place.folder);
    if (!repository) continue;
    warn(place, repository, 'reads the repository at');
    if (repository.at.endsWith('/.git')) workTrees.push({ top: dirname(repository.at), place });
    if (/^(--work-tree|GIT_WORK_TREE)\b/.test(place.named ?? '')) {
      workTrees.push({ top: facts.realPath(place.folder) ?? place.folder, place });
    }
  }
  if (namesGit) warnings.push(...nestedWarnings(workTrees, facts, walk, warn));
  if (unwalked.length > 0) {
    warnings.push(
      `Warning: git may read a repository above ${unwalked.length === 1 ? unwalked[0] : `${unwalked.length} folders the command names`}, which this form did not finish looking for (more than ${MAX_FOLDERS_WALKED} folders): commands in the sandbox may have written it, with programs for git to run (core.fsmonitor, hooks).`,
    );
  }
  for (const config of configs) {
    const root = writableRootOf(config.folder, roots, facts);
    if (root === undefined) continue;
    warnings.push(
      `Warning: git reads config or runs programs from ${config.folder} (${config.named}), which lies in ${root}: commands in the sandbox can write it, ${RUNS}`,
    );
  }
  if (settings.length > 0) {
    warnings.push(
      `Warning: git is given config by the command (${settings.join(', ')}): config can make git run programs (core.fsmonitor, core.pager, aliases, include.path), and the agent chose it.`,
    );
  }
  if (namesGit && atRunTime.length > 0) {
    warnings.push(
      `Warning: git may read a repository or config in a folder the command picks only as it runs (${atRunTime.join(', ')}): commands in the sandbox may have written it, with programs for git to run (core.fsmonitor, hooks).`,
    );
  }
  return warnings;
}

/**
 * Warns (through `warn`) for each repository beneath each work tree that git may visit (nestedRepositories), each
 * work tree walked once; the warnings for the work trees it did not finish walking.
 */
function nestedWarnings(
  workTrees: readonly { top: string; place: GitPlace }[],
  facts: GitFacts,
  walk: Walk,
  warn: (place: GitPlace, repository: Repository, how: string) => void,
): string[] {
  const walked: string[] = [];
  const unfinished: string[] = [];
  for (const { top, place } of workTrees) {
    if (walked.some((dir) => top === dir || isInside(top, dir))) continue;
    walked.push(top);
    const { repositories, finished } = nestedRepositories(top, facts, walk);
    for (const repository of repositories)
      warn(place, repository, `may visit, beneath its work tree ${top}, the repository at`);
    if (!finished) unfinished.push(top);
  }
  return unfinished.map(
    (top) =>
      `Warning: git may visit repositories beneath ${top} (submodules), which this form did not finish looking for (more than ${MAX_FOLDERS_WALKED} folders): commands in the sandbox may have written them, with programs for git to run (core.fsmonitor, hooks).`,
  );
}

const where = (place: GitPlace): string =>
  place.named === undefined ? 'run here' : `in ${place.folder} (${place.named})`;

function shown(repository: Repository, folder: string): string {
  if (folder === repository.commonDir) return `${folder} (the common folder of ${repository.gitDir})`;
  if (repository.at !== repository.gitDir) return `${repository.gitDir} (which ${repository.at} points to)`;
  return repository.gitDir;
}
