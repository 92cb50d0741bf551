package dev.ballast.pick;

import dev.ballast.annotation.Experimental;
import dev.ballast.settings.Settings;

/**
 * Makes a {@link CustomPolicy} selectable by name: in a gRPC service config ({@code "policy":
 * "NAME"} or {@code {"NAME": {settings}}}), in an xDS cluster's TypedStruct (the same JSON), in a
 * simulator scenario ({@code policies}, {@code policy-settings.NAME}) and on {@code ballast sim
 * --policy}, exactly like the built-in policies. {@link PolicyTable} finds providers with {@link
 * java.util.ServiceLoader}: list the provider's class in a file {@code
 * META-INF/services/dev.ballast.pick.PolicyProvider} on the class path (or {@code provides
 * dev.ballast.pick.PolicyProvider with ...} in a module descriptor); it needs a public
 * no-argument constructor.
 *
 * <p>Its settings are declared once, as the built-in policies' are: a {@link Settings} of the
 * policy's config record, whose name is the policy's name. Every front end reads the config
 * through it, with the same checks and messages as for the built-in policies.
 *
 * <p>The rules, as for gRPC's {@code LoadBalancerProvider}: the name is lower-case letters,
 * digits and {@code _}, starting with a letter (at most 64 characters), and is read once, when the
 * table is built; a provider that is not {@linkplain #isAvailable() available} is left out; of
 * several providers of one name, the one of the highest {@linkplain #priority() priority} wins (the
 * first found on a tie). A provider cannot take a built-in policy's name. A provider that breaks a
 * rule is left out of the table, and selecting its name is an error that says why.
 *
 * <p>An abstract class rather than an interface, so that methods can be added with defaults.
 *
 * @param <C> the policy's config record
 */
@Experimental("the extension point is new and may gain methods as its first users try it")
public abstract class PolicyProvider<C> {

  /** For subclasses; {@link java.util.ServiceLoader} needs a public no-argument constructor of theirs. */
  protected PolicyProvider() {}

  /**
   * The policy's declared settings. Their {@linkplain Settings#name() name} is the policy's name,
   * the one {@link #create} gives its policies.
   *
   * @return the settings, the same on every call
   */
  public abstract Settings<C> settings();

  /**
   * The policy for {@code config}; called on the control plane whenever a config selects it.
   *
   * @param config a config read through {@link #settings()}, already validated
   * @return the policy, whose {@link Policy#name()} is the provider's name
   */
  public abstract Policy create(C config);

  /**
   * Whether the policy can run here (a library it needs is present); a provider that says no is
   * left out of the table. True by default.
   *
   * @return whether the provider is usable
   */
  public boolean isAvailable() {
    return true;
  }

  /**
   * Which of several providers of the same name wins: the highest, from 0 to 10; 5 by default, as
   * for gRPC's providers.
   *
   * @return the priority, 0..10
   */
  public int priority() {
    return 5;
  }
}
