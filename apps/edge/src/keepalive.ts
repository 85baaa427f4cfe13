/**
 * TCP keep-alive for the connections the edge relays for as long as both
 * ends like (gateway routes; HAProxy does the same for proxy hosts' upgrade
 * tunnels, `option clitcpka/srvtcpka`). There is no idle timeout on
 * them, so an idle database connection through a route stays open; a peer
 * that vanished without a FIN (a crash, a lost network) is found by the
 * kernel instead, after 60 s of silence and 10 unanswered probes a second
 * apart (libuv sets the probes' interval and count with the delay: seen
 * with strace, TCP_KEEPINTVL 1 and TCP_KEEPCNT 10), and both sockets of the
 * pair are freed.
 */
export const KEEPALIVE = { keepAlive: true, keepAliveInitialDelay: 60_000 } as const;
