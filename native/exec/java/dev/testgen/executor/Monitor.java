package dev.testgen.executor;

import java.io.FilePermission;
import java.net.SocketPermission;
import java.security.Permission;

/**
 * A SecurityManager that allows everything but watches: it reports file,
 * network and process accesses to {@link Access}, turns exits into
 * {@link ExitRequested} (this covers classes that were not instrumented),
 * and refuses to be replaced.
 *
 * Installing one needs {@code -Djava.security.manager=allow} on JDK 18 to
 * 23 and is impossible from JDK 24 on; {@link #install} then says why.
 */
final class Monitor extends SecurityManager {
    private Monitor() {}

    /**
     * Classes the checks use. Loading a class checks permissions (the class
     * loader reads files), so a class first needed inside a check would
     * recurse without end: they are all loaded before the monitor is
     * installed.
     */
    private static final Class<?>[] NEEDED = {
        Access.class, PlanContext.class, Json.Writer.class, ExitRequested.class, Main.class,
        FilePermission.class, SocketPermission.class, RuntimePermission.class,
    };

    /** Installs the monitor; returns null on success, else why it could not be. */
    static String install() {
        try {
            for (Class<?> needed : NEEDED) {
                Class.forName(needed.getName(), true, needed.getClassLoader());
            }
            System.setSecurityManager(new Monitor());
            return null;
        } catch (UnsupportedOperationException | SecurityException | ClassNotFoundException e) {
            return "access monitoring unavailable: " + e.getMessage();
        }
    }

    @Override
    public void checkPermission(Permission permission) {
        inspect(permission);
    }

    @Override
    public void checkPermission(Permission permission, Object context) {
        inspect(permission);
    }

    private static void inspect(Permission permission) {
        if (permission instanceof FilePermission) {
            Access.file(permission.getName(), permission.getActions());
        } else if (permission instanceof SocketPermission) {
            Access.network(permission.getName(), permission.getActions());
        } else if (permission instanceof RuntimePermission
                && "setSecurityManager".equals(permission.getName()) && !Main.exiting) {
            throw new SecurityException("the testgen executor's security manager cannot be replaced");
        }
    }

    @Override
    public void checkExit(int status) {
        if (!Main.exiting) {
            throw PlanContext.exitRequested(status);
        }
    }

    @Override
    public void checkExec(String command) {
        Access.exec(command);
    }
}
