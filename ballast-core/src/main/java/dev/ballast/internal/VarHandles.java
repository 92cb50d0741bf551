package dev.ballast.internal;

import dev.ballast.annotation.Internal;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Looks up the field handles that Ballast's lock-free classes update. Internal to Ballast: not an API. */
@Internal
public final class VarHandles {
  private VarHandles() {}

  /**
   * The handle on field {@code name} of type {@code type} in {@code lookup}'s class; pass {@code
   * MethodHandles.lookup()} from that class, so that private fields are reachable. A missing field
   * is a programming error: it fails the class's initialization.
   *
   * @param lookup the lookup of the class that declares the field
   * @param name the field's name
   * @param type the field's type
   * @return the handle
   * @throws IllegalStateException when there is no such field
   */
  public static VarHandle field(MethodHandles.Lookup lookup, String name, Class<?> type) {
    try {
      return lookup.findVarHandle(lookup.lookupClass(), name, type);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "field " + lookup.lookupClass().getName() + "." + name + " of type " + type.getName() + ": " + e, e);
    }
  }
}
