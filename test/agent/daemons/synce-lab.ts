/**
 * The SyncE lab of the node agent's tests: synce4l built from the source kept in
 * third_party/synce4l (intel/synce4l 1.1.1, GPL-2.0; not packaged for Debian 12) with Debian's
 * libnl, and two synce4l in two network namespaces of the lab's own joined by a veth pair,
 * exchanging real ESMC frames. No SyncE hardware: each device's EEC state is what its
 * `eec_get_state_cmd` reads from a file (synce_dev_ctrl.h's values: 1 FREERUN, 2 LOCKED,
 * 4 HOLDOVER), which the lab writes, and so do the follower's recover-clock commands, as an EEC
 * locks to the port synce4l enables and holds over when it is disabled.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { MSG, tlv } from '../../../agent/synce4l';
import { namespacePair, PROJECT_DIR, until } from '../../../scripts/agent-lab';

const SOURCE = join(PROJECT_DIR, 'third_party', 'synce4l');

/**
 * Builds synce4l from third_party/synce4l in `dir` (`make synce4l`, a few seconds): its path, or
 * why it cannot be built here (no compiler, no libnl headers).
 */
export function buildSynce4l(dir: string): { binary: string } | { missing: string } {
  if (spawnSync('sh', ['-c', 'command -v make && command -v gcc']).status !== 0)
    return { missing: 'make and gcc are not installed (apt-get install -y build-essential)' };
  if (!existsSync('/usr/include/libnl3/netlink/genl/genl.h'))
    return { missing: 'libnl is not installed (apt-get install -y libnl-3-dev libnl-genl-3-dev)' };
  const build = join(dir, 'synce4l-src');
  cpSync(SOURCE, build, { recursive: true });
  const made = spawnSync('make', ['-C', build, 'synce4l'], { encoding: 'utf8' });
  if (made.status !== 0) return { missing: `make synce4l failed: ${made.stderr.slice(-500)}` };
  return { binary: join(build, 'synce4l') };
}

/** synce_dev_ctrl.h's EEC states, as the lab's `eec_get_state_cmd` prints them. */
export const EEC = { FREERUN: '1', LOCKED: '2', HOLDOVER: '4' } as const;

/**
 * Sets an external source's QL and extended QL through synce4l's control socket (SET_QL,
 * SET_EXT_QL), as an operator does when the GNSS behind it degrades; resolves once synce4l
 * answered without an error.
 */
function setSourceQuality(socket: string, device: string, source: string, ql: number, extQl: number) {
  const command = Buffer.concat([
    tlv(MSG.devName, Buffer.from(device)),
    tlv(MSG.srcName, Buffer.from(source)),
    tlv(MSG.setQl, Buffer.from([ql])),
    tlv(MSG.setExtQl, Buffer.from([extQl])),
    tlv(MSG.end),
  ]);
  return new Promise<void>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const connection = createConnection(socket);
    connection.on('connect', () => connection.write(command));
    connection.on('data', (chunk) => chunks.push(chunk));
    connection.on('error', reject);
    connection.on('close', () => {
      const answer = Buffer.concat(chunks);
      if (answer.length >= 4 && answer.readUInt16LE(0) === MSG.errMsg)
        reject(new Error(`synce4l refused SET_QL: ${answer.subarray(4).toString('utf8')}`));
      else resolve();
    });
  });
}

/**
 * Two synce4l joined by a veth pair: the source (`a`), whose device `synce1` takes its frequency
 * from an external GNSS input of QL PRTC (0x2, extended 0x20) and whose EEC is LOCKED; and the
 * follower (`b`), whose EEC starts FREERUN and locks when synce4l enables its port's recovered
 * clock (the enable command writes LOCKED; the disable command writes HOLDOVER when it was
 * LOCKED). Both log at level 7 (FREERUN is logged only there) to files the agent follows.
 */
export async function startSyncePair(dir: string, binary: string) {
  const pair = namespacePair(['sa', 'sb'], ['10.233.0.1/30', '10.233.0.2/30']);
  const [aPort, bPort] = pair.names;
  const configure = (role: 'a' | 'b', port: string, device: string[], portLines: string[]) => {
    const eec = join(dir, `synce-${role}.eec`);
    const socket = join(dir, `synce-${role}.sock`);
    const log = join(dir, `synce-${role}.log`);
    const text = [
      '[global]',
      'logging_level 7',
      'use_syslog 0',
      `message_tag [synce-${role}]`,
      `smc_socket_path ${socket}`,
      '',
      '[<synce1>]',
      'network_option 1',
      'extended_tlv 1',
      'recover_time 10',
      `eec_get_state_cmd cat ${eec}`,
      'eec_holdover_value 4',
      'eec_locked_ho_value 3',
      'eec_locked_value 2',
      'eec_freerun_value 1',
      'eec_invalid_value 0',
      '',
      ...device,
      `[${port}]`,
      'tx_heartbeat_msec 1000',
      'rx_heartbeat_msec 50',
      ...portLines,
      '',
    ].join('\n');
    const config = join(dir, `synce-${role}.cfg`);
    writeFileSync(config, text);
    writeFileSync(log, '');
    return { eec, socket, log, config, text };
  };
  const a = configure(
    'a',
    aPort,
    [
      '[{GNSS}]',
      'external_enable_cmd true',
      'external_disable_cmd true',
      'input_QL 0x2',
      'input_ext_QL 0x20',
      'internal_prio 0',
      '',
    ],
    ['recover_clock_enable_cmd true', 'recover_clock_disable_cmd true'],
  );
  const b = configure('b', bPort, [], []);
  // The follower's EEC: locked once its port is its source, in holdover when that is taken away.
  const bLines = [
    `recover_clock_enable_cmd echo ${EEC.LOCKED} > ${b.eec}`,
    `recover_clock_disable_cmd grep -qx ${EEC.LOCKED} ${b.eec} && echo ${EEC.HOLDOVER} > ${b.eec}; true`,
  ];
  writeFileSync(
    b.config,
    b.text.replace('rx_heartbeat_msec 50\n', `rx_heartbeat_msec 50\n${bLines.join('\n')}\n`),
  );
  writeFileSync(a.eec, `${EEC.LOCKED}\n`);
  writeFileSync(b.eec, `${EEC.FREERUN}\n`);
  const start = (ns: string, role: typeof a) =>
    pair.run(ns, 'sh', ['-c', `exec ${binary} -m -f ${role.config} >> ${role.log} 2>&1`]);
  start(aPort, a);
  let bDaemon = start(bPort, b);
  const ip = (args: string) => execFileSync('ip', args.split(' '), { stdio: 'pipe' });
  const logged = (role: typeof a, pattern: RegExp, what: string, timeoutMs = 30_000) =>
    until(
      () => (pattern.test(readFileSync(role.log, 'utf8')) ? true : undefined),
      () => `${what}; synce4l said:\n${readFileSync(role.log, 'utf8').slice(-3000)}`,
      timeoutMs,
    );
  try {
    await logged(b, /running num_devices 1 configured 1/, 'the follower synce4l to start');
    await logged(a, /running num_devices 1 configured 1/, 'the source synce4l to start');
  } catch (error) {
    await pair.remove();
    throw error;
  }
  return {
    interfaces: pair.names,
    device: 'synce1',
    /** The follower's log, control socket and EEC state file: what the agent follows. */
    follower: b,
    source: a,
    configText: b.text,
    logged,
    /** Writes the follower's EEC state, as its hardware would change it. */
    setFollowerEec: (state: (typeof EEC)[keyof typeof EEC]) => writeFileSync(b.eec, `${state}\n`),
    setSourceQuality: (ql: number, extQl: number) => setSourceQuality(a.socket, 'synce1', 'GNSS', ql, extQl),
    /** The source's end of the link down or up: the follower's link goes with it. */
    setLink: (up: boolean) => ip(`-n ${aPort} link set ${aPort} ${up ? 'up' : 'down'}`),
    killFollower: () => bDaemon.stop('SIGKILL'),
    startFollower: () => {
      bDaemon = start(bPort, b);
    },
    remove: pair.remove,
  };
}
