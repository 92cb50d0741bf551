/** An application on the module path that needs ballast-core alone. */
module com.example.coreonly {
  requires dev.ballast.core;

  exports com.example.coreonly;
}
