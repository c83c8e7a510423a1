/**
 * The DaemonSet (agent/kubernetes/ocloud-node-agent.yaml), validated against the Kubernetes API
 * schema with kubernetes-models (its models check each object offline) and held to the image
 * (agent/image/Containerfile) and to the agent: the same settings, paths and port.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASE_PATH } from '../../../lib/http/base-path';
import { PROJECT_DIR } from '../../../scripts/agent-lab';

const require = createRequire(import.meta.url);
type Model = new (object: unknown) => { validate(): void };
/** kubernetes-models' model of `apiVersion`/`kind`, from the project's devDependency (or KUBERNETES_MODELS). */
function model(apiVersion: string, kind: string): Model | undefined {
  const group = apiVersion.includes('/') ? apiVersion : `v1`;
  for (const base of ['kubernetes-models', process.env.KUBERNETES_MODELS]) {
    if (!base) continue;
    try {
      return require(`${base}/${group}/${kind}`)[kind];
    } catch {}
  }
  return undefined;
}
const missing = model('apps/v1', 'DaemonSet')
  ? undefined
  : 'kubernetes-models is not installed (npm install: it is a devDependency)';
if (missing) console.warn(`Skipping the DaemonSet's schema test: ${missing}.`);

const { loadAll } = require('js-yaml') as {
  loadAll: (text: string) => unknown[];
};
interface Container {
  image: string;
  env: { name: string; value?: string; valueFrom?: unknown }[];
  envFrom: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports: { name: string; containerPort: number; hostPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
  securityContext: { runAsUser: number; capabilities: { drop: string[]; add: string[] } };
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: {
    template: {
      spec: {
        hostNetwork: boolean;
        containers: Container[];
        volumes: { name: string; hostPath?: { path: string } }[];
      };
    };
  };
}

const manifests = loadAll(
  readFileSync(join(PROJECT_DIR, 'agent', 'kubernetes', 'ocloud-node-agent.yaml'), 'utf8'),
) as Manifest[];
const daemonSet = manifests.find((m) => m.kind === 'DaemonSet');
const configMap = manifests.find((m) => m.kind === 'ConfigMap');
const pod = daemonSet?.spec?.template.spec;
const container = pod?.containers[0] as Container;
const containerfile = readFileSync(join(PROJECT_DIR, 'agent', 'image', 'Containerfile'), 'utf8');
const imageEnv = Object.fromEntries(
  [...containerfile.matchAll(/(?:ENV|\\\n)\s+(\w+)=(\S+)/g)].map(([, name, value]) => [name, value]),
);
const agentSource = readFileSync(join(PROJECT_DIR, 'agent', 'main.ts'), 'utf8');

describe('the DaemonSet', () => {
  it.skipIf(missing)('validates against the Kubernetes API schema, each of its objects', () => {
    expect(manifests.map((m) => m.kind)).toEqual(['Namespace', 'ConfigMap', 'DaemonSet']);
    for (const manifest of manifests) {
      const Kind = model(manifest.apiVersion, manifest.kind);
      expect(Kind, `${manifest.apiVersion} ${manifest.kind}`).toBeDefined();
      expect(() => Kind && new Kind(manifest).validate()).not.toThrow();
    }
    // The check is real: a port that is not a number is refused.
    const broken = structuredClone(daemonSet) as Manifest;
    (broken.spec?.template.spec.containers[0]?.ports[0] as { containerPort: unknown }).containerPort = 'x';
    const DaemonSet = model('apps/v1', 'DaemonSet');
    expect(() => DaemonSet && new DaemonSet(broken).validate()).toThrow(/containerPort/);
  });

  it("runs the image npm run build:agent-image tags, with the image's state directory and port", async () => {
    const { IMAGE } = await import('../../../scripts/build-agent-image');
    expect(container.image).toBe(IMAGE);
    const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
    expect(env.STATE_DIRECTORY).toBe(imageEnv.STATE_DIRECTORY);
    expect(container.volumeMounts.find((m) => m.name === 'state')?.mountPath).toBe(imageEnv.STATE_DIRECTORY);
    const exposed = Number(/^EXPOSE (\d+)$/m.exec(containerfile)?.[1]);
    expect(container.ports).toEqual([
      { name: 'o-cloud-api', containerPort: exposed, hostPort: exposed, protocol: 'TCP' },
    ]);
    expect(env.AGENT_SERVE).toBe(`$(HOST_IP):${exposed}`);
    // The agent's own health route under the API base (lib/http/routes.ts), as its --serve answers it.
    expect(container.livenessProbe.httpGet).toEqual({ path: `${BASE_PATH}/health`, port: 'o-cloud-api' });
    expect(pod?.hostNetwork).toBe(true);
  });

  it("sets only the agent's own settings, the node's address from its name and its site's label", () => {
    const names = [...container.env.map((e) => e.name), ...Object.keys(configMap?.data ?? {})].filter(
      (name) => !['NODE_NAME', 'HOST_IP', 'OCLOUD_CLUSTER', 'OCLOUD_SITE'].includes(name),
    );
    for (const name of names) expect(agentSource, name).toMatch(new RegExp(`\\benv\\.${name}\\b`));
    const env = Object.fromEntries(container.env.map((e) => [e.name, e]));
    expect(env.NODE_NAME?.valueFrom).toEqual({ fieldRef: { fieldPath: 'spec.nodeName' } });
    expect(env.NODE_ADDRESS?.value).toBe('/$(OCLOUD_CLUSTER)/$(OCLOUD_SITE)/$(NODE_NAME)');
    const selector = (pod as unknown as { nodeSelector: Record<string, string> }).nodeSelector;
    expect(selector['topology.kubernetes.io/zone']).toBe(env.OCLOUD_SITE?.value);
    expect(container.envFrom).toContainEqual({ secretRef: { name: 'ocloud-node-agent-region' } });
  });

  it("mounts each daemon's socket and log from the host at the path the agent is given", () => {
    const mounts = container.volumeMounts.map((mount) => ({
      ...mount,
      host: pod?.volumes.find((volume) => volume.name === mount.name)?.hostPath?.path,
    }));
    for (const key of ['PTP4L_UDS', 'PHC2SYS', 'SYNCE4L', 'SYNCE4L_SOCKET']) {
      const path = configMap?.data?.[key] ?? '';
      const mount = mounts.find((m) => path.startsWith(`${m.mountPath}/`));
      expect(mount, `${key} ${path}`).toBeDefined();
      // The same path on the host: ptp4l answers the agent at the path its client socket has.
      expect(mount?.host).toBe(mount?.mountPath);
    }
    expect(mounts.find((m) => m.mountPath === '/var/log')?.readOnly).toBe(true);
    expect(container.securityContext.capabilities).toEqual({ drop: ['ALL'], add: ['DAC_OVERRIDE'] });
  });
});
