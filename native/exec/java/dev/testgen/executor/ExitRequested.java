package dev.testgen.executor;

/**
 * Thrown instead of exiting when the code under test calls System.exit,
 * Runtime.exit or Runtime.halt. An Error, so that ordinary
 * {@code catch (Exception e)} blocks let it through; code that swallows it
 * anyway does not change the verdict, which was recorded before the throw.
 */
public final class ExitRequested extends Error {
    private static final long serialVersionUID = 1L;

    private final int status;

    ExitRequested(int status) {
        super("exit requested with status " + status, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
