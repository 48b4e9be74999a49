/** What a followed log has delivered so far. */
export interface FollowedLog {
  status: number;
  contentType: string | null;
  text: string;
  ended: boolean;
}

/** GET .../pods/<pod>/log?follow=true over plain HTTP, read in the background as it comes; abort to hang up. */
export async function followPodLog(cloud: { apiUrl: string; credentials: { admin: string } }, pod: string): Promise<{ got: FollowedLog; abort: AbortController }> {
  const abort = new AbortController();
  const res = await fetch(`${cloud.apiUrl.replace(/^https:/, 'http:')}/api/v1/namespaces/default/pods/${pod}/log?follow=true`, {
    headers: { authorization: `Bearer ${cloud.credentials.admin}` },
    signal: abort.signal,
  });
  const got: FollowedLog = { status: res.status, contentType: res.headers.get('content-type'), text: '', ended: false };
  const decoder = new TextDecoder();
  void (async () => {
    for await (const part of res.body!) got.text += decoder.decode(part as Uint8Array, { stream: true });
    got.ended = true;
  })().catch(() => undefined); // the caller hung up
  return { got, abort };
}
