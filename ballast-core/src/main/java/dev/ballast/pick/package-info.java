/**
 * Which backend of the subset serves a request. {@link dev.ballast.pick.Balancer} holds a client's
 * subset and publishes immutable {@link dev.ballast.pick.Picker} snapshots; {@link
 * dev.ballast.pick.Policy} names the picking policies (round robin, least loaded, weighted round
 * robin, power of two choices, fair share, interleaved weighted round robin, Prequal probing),
 * each configured by its own {@code *Config} record. A pick is lock-free and allocates nothing;
 * its outcome is reported on the {@link dev.ballast.pick.Pick} it returns. The policies'
 * implementations are package-private.
 */
package dev.ballast.pick;
