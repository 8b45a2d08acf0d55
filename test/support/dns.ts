import dns2 from 'dns2';

/** A local authoritative DNS server (UDP) whose records the test sets: TXT and A per exact name. */
export interface TestDns {
  /** `host:port`, as SCHED_DNS_SERVERS takes it. */
  address: string;
  txt: Map<string, string[]>;
  a: Map<string, string>;
  close(): Promise<void>;
}

export async function startDns(): Promise<TestDns> {
  const txt = new Map<string, string[]>();
  const a = new Map<string, string>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      for (const q of request.questions) {
        const name = q.name.toLowerCase();
        if (q.type === Packet.TYPE.TXT) {
          for (const data of txt.get(name) ?? [])
            response.answers.push(
              Object.assign(new Packet.Resource(q.name, Packet.TYPE.TXT, Packet.CLASS.IN, 1), { data }),
            );
        } else if (q.type === Packet.TYPE.A && a.has(name)) {
          response.answers.push(
            Object.assign(new Packet.Resource(q.name, Packet.TYPE.A, Packet.CLASS.IN, 1), {
              address: a.get(name)!,
            }),
          );
        }
      }
      send(response);
    },
  });
  const { udp } = (await server.listen({ udp: { port: 0, address: '127.0.0.1' } })) as {
    udp: { port: number };
  };
  return {
    address: `127.0.0.1:${udp.port}`,
    txt,
    a,
    close: () => server.close(),
  };
}
