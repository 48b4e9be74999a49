/**
 * The preset dictionary of the sync's compressed form `deflate-d1` (wire-compression.ts):
 * text the sync's messages are made of (the envelope's keys, a pod as the cloud sends it, a
 * pod status, an Event, the refs of a hello), so that even a message of a few hundred bytes
 * compresses to the little that is its own (uids, times, names). Both ends must hold the same
 * bytes: never change it; a new dictionary is a new form (`deflate-d2`), offered beside this one.
 * The most frequent text comes last: deflate reaches it with the shortest distances.
 */
const event =
  '{"name":"web.18edcc404450cf32","involvedObject":{"kind":"Pod","namespace":"default","name":"web","uid":"","fieldPath":"spec.containers{main}"},' +
  '"reason":"Pulled","message":"Container image \\"nginx\\" already present on machine","type":"Normal","count":1,"firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:00:00Z"}' +
  '"reason":"Created","message":"Created container: main""reason":"Started","message":"Started container main""reason":"Killing","message":"Stopping container main"';

const node =
  '{"apiVersion":"v1","kind":"Node","metadata":{"name":"edge-1","labels":{"kubernetes.io/hostname":"edge-1","kubernetes.io/os":"linux","kubernetes.io/arch":"amd64"}},"spec":{},' +
  '"status":{"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},"conditions":[' +
  '{"type":"MemoryPressure","status":"False","lastHeartbeatTime":"","lastTransitionTime":"","reason":"KubeletHasSufficientMemory","message":"kubelet has sufficient memory available"},' +
  '{"type":"DiskPressure","status":"False","lastHeartbeatTime":"","lastTransitionTime":"","reason":"KubeletHasNoDiskPressure","message":"kubelet has no disk pressure"},' +
  '{"type":"PIDPressure","status":"False","lastHeartbeatTime":"","lastTransitionTime":"","reason":"KubeletHasSufficientPID","message":"kubelet has sufficient PID available"},' +
  '{"type":"Ready","status":"True","lastHeartbeatTime":"","lastTransitionTime":"","reason":"KubeletReady","message":"kubelet is posting ready status"}],' +
  '"addresses":[{"type":"InternalIP","address":"127.0.0.1"},{"type":"Hostname","address":"edge-1"}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},' +
  '"nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"Debian GNU/Linux 12 (bookworm)","containerRuntimeVersion":"sim://0.1.0",' +
  '"kubeletVersion":"v1.32.4-kedge","kubeProxyVersion":"v1.32.4-kedge","operatingSystem":"linux","architecture":"amd64"}}}';

const pod =
  '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"},"namespace":"default","uid":"","creationTimestamp":"2026-01-01T00:00:00Z","generation":1,' +
  '"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"","controller":true,"blockOwnerDeletion":true}],"resourceVersion":"1"},' +
  '"spec":{"nodeName":"edge-1","containers":[{"name":"main","image":"nginx","ports":[{"containerPort":80,"protocol":"TCP"}],"imagePullPolicy":"IfNotPresent",' +
  '"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","resources":{}}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,' +
  '"dnsPolicy":"ClusterFirst","schedulerName":"default-scheduler","securityContext":{},"enableServiceLinks":true,"priority":0,"preemptionPolicy":"PreemptLowerPriority",' +
  '"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},' +
  '{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]},"status":{"phase":"Pending","conditions":[' +
  '{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":""}],"qosClass":"BestEffort"}}';

const podStatus =
  '{"phase":"Running","conditions":[{"type":"PodReadyToStartContainers","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-01T00:00:00.000Z"},' +
  '{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-01T00:00:00.000Z"},' +
  '{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-01T00:00:00.000Z"},' +
  '{"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-01T00:00:00.000Z"},' +
  '{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-01T00:00:00.000Z"}],' +
  '"hostIP":"127.0.0.1","hostIPs":[{"ip":"127.0.0.1"}],"startTime":"2026-01-01T00:00:00.000Z","containerStatuses":[{"name":"main","ready":true,"started":true,"restartCount":0,' +
  '"image":"nginx","imageID":"nginx@sha256:","state":{"running":{"startedAt":"2026-01-01T00:00:00.000Z"}},"lastState":{},"containerID":"sim://"}],' +
  '"qosClass":"BestEffort","podIP":"127.64.0.2","podIPs":[{"ip":"127.64.0.2"}]}' +
  '"state":{"waiting":{"reason":"ContainerCreating"}}"state":{"terminated":{"exitCode":0,"reason":"Completed","startedAt":"","finishedAt":""}}"phase":"Pending"' +
  '"status":"False","reason":"ContainersNotReady","message":"containers with unready status: [main]"';

const envelope =
  '{"v":1,"id":".1","seq":1,"sender":"cloud","epoch":"","type":"delete","ref":{"kind":"Pod","namespace":"default","name":"web","uid":""}}' +
  '{"v":1,"id":".1","seq":1,"sender":"cloud","epoch":"","type":"patch","ref":{"kind":"Pod","name":"web","uid":"","namespace":"default","resourceVersion":"1"},"base":"1","keepStatus":true,"digest":"","body":{"metadata":{"resourceVersion":"1"}}}' +
  '{"kind":"Pod","name":"web","uid":"","namespace":"default","resourceVersion":"1"},' +
  '{"v":1,"id":".1","seq":1,"sender":"edge-1","epoch":"","type":"podStatus","ref":{"kind":"Pod","name":"web","uid":"","namespace":"default","resourceVersion":"1"},"body":' +
  podStatus +
  ',"statusVersion":1}{"v":1,"id":".1","seq":1,"sender":"cloud","epoch":"","type":"apply","ref":{"kind":"Pod","name":"web","uid":"","namespace":"default","resourceVersion":"1"},"body":' +
  pod +
  '}{"v":1,"id":".1","seq":1,"sender":"edge-1","epoch":"","type":"ack","parentId":".1"}{"v":1,"id":".1","seq":1,"sender":"cloud","epoch":"","type":"ack","parentId":".1"}';

export const WIRE_DICTIONARY_D1: Buffer = Buffer.from('{"type":"event","body":' + event + '{"type":"nodeStatus","body":' + node + envelope);
