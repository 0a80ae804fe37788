import { specObjective, type SpecObjective } from '../../cell/spec-objective.js';
import { parseCellId } from '../../journal/run-folder.js';
import type { LoadedManifest } from '../../manifest/manifest-loader.js';
import { repetitionsAt } from '../../manifest/manifest.js';
import type { SimPairName } from '../../providers/engine-roster.js';
import { simPairsOf, simSetup } from '../population/sim-setup.js';
import { SIMULATED_TAG, type SimPopulation } from '../population/sim-population.js';
import { SimRequestRefusedError } from './serve-errors.js';

/**
 * The SIMULATED populations one manifest implies, one per (cap, repetition), built exactly as
 * `harness record` builds them for the in-process sim (record.ts, `baseModels`) and cached, so
 * a call over HTTP is answered by the very world the in-process population would have used.
 */
export class ServedPopulations {
  /** The two model ids served: the manifest's executor and reviewer ids, tagged SIMULATED as simRoster tags them. */
  readonly models: readonly string[];
  private readonly pairs: { executor: SimPairName; reviewer: SimPairName };
  private readonly cache = new Map<string, Promise<SimPopulation>>();

  private constructor(
    private readonly loaded: LoadedManifest,
    private readonly objective: SpecObjective,
  ) {
    // The manifest's own ids and families, whatever provider it names: over HTTP they are served as if `sim`.
    this.pairs = simPairsOf(loaded.manifest);
    this.models = [this.pairs.executor, this.pairs.reviewer].map((p) => `${p.model} ${SIMULATED_TAG}`);
  }

  /** Reads the manifest's spec once (its requirements plant every world). */
  static async of(loaded: LoadedManifest): Promise<ServedPopulations> {
    return new ServedPopulations(loaded, await specObjective(loaded.specDir));
  }

  /** The population of the cell a call names; a 400 for one this manifest does not hold. */
  async forCell(cell: string): Promise<SimPopulation> {
    const key = parseCellId(cell);
    const { manifest, shownAs } = this.loaded;
    if (!key) throw new SimRequestRefusedError(400, 'invalid_request_error', `the x-rdh-call header names cell ${JSON.stringify(cell)}, which is not a cell id like cap2-rep1-gated`);
    if (!manifest.depth_caps.includes(key.cap) || key.repetition > repetitionsAt(manifest, key.cap)) {
      throw new SimRequestRefusedError(400, 'invalid_request_error', `cell ${cell} is not in ${shownAs} (caps ${manifest.depth_caps.join(', ')}); serve the manifest being recorded (harness sim serve --manifest FILE)`);
    }
    const id = `${key.cap}/${key.repetition}`;
    let population = this.cache.get(id);
    if (!population) {
      population = simSetup({
        params: manifest.simulated,
        maxDepth: key.cap,
        repetition: key.repetition,
        mergeAttempts: manifest.merge_attempts,
        pairing: manifest.pairing,
        maxChildren: manifest.max_children,
        requirements: this.objective.requirements,
        specDir: this.loaded.specDir,
        pairs: this.pairs,
      }).then((setup) => setup.population);
      // A failed build is not cached: the next call tries again rather than inheriting it.
      population.catch(() => this.cache.delete(id));
      this.cache.set(id, population);
    }
    return population;
  }
}
