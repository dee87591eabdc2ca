package dev.testgen.executor;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.zip.ZipFile;

/**
 * The project's classpath (directories and jars), shared by every plan's
 * class loader. Class bytes are read once and kept: a fresh loader per plan
 * then costs a defineClass, not a disk read. The classpath is fixed for the
 * executor's life (the Rust side restarts it when the project changes).
 */
final class ClassSource {
    /** A class file found on the classpath, with the domain of the entry it came from. */
    static final class Found {
        final byte[] bytes;
        final ProtectionDomain domain;

        Found(byte[] bytes, ProtectionDomain domain) {
            this.bytes = bytes;
            this.domain = domain;
        }
    }

    private static final Found MISSING = new Found(new byte[0], null);

    private final List<Entry> entries = new ArrayList<>();
    private final ConcurrentHashMap<String, Found> classes = new ConcurrentHashMap<>();
    /** Packages of the JDK's modules: always loaded from the JDK, never from the project. */
    private final Set<String> jdkPackages = new HashSet<>();

    ClassSource(List<String> paths) {
        for (String path : paths) {
            entries.add(new Entry(new File(path).getAbsoluteFile()));
        }
        for (Module module : ModuleLayer.boot().modules()) {
            ModuleDescriptor descriptor = module.getDescriptor();
            if (descriptor != null) {
                jdkPackages.addAll(descriptor.packages());
            }
        }
    }

    boolean isJdkPackage(String className) {
        int dot = className.lastIndexOf('.');
        return dot > 0 && jdkPackages.contains(className.substring(0, dot));
    }

    /** The class file for a binary name, or null if no entry has it. */
    Found find(String className) {
        Found found = classes.get(className);
        if (found == null) {
            found = read(className.replace('.', '/') + ".class");
            classes.put(className, found);
        }
        return found == MISSING ? null : found;
    }

    private Found read(String path) {
        Access.beginQuiet();
        try {
            for (Entry entry : entries) {
                byte[] bytes = entry.read(path);
                if (bytes != null) {
                    return new Found(bytes, entry.domain);
                }
            }
            return MISSING;
        } finally {
            Access.endQuiet();
        }
    }

    /** The classpath's directories and jars, absolute. */
    List<File> entryFiles() {
        List<File> files = new ArrayList<>();
        for (Entry entry : entries) {
            files.add(entry.file);
        }
        return files;
    }

    /** URLs of a resource in classpath order. */
    List<URL> resources(String name) {
        List<URL> urls = new ArrayList<>();
        Access.beginQuiet();
        try {
            for (Entry entry : entries) {
                URL url = entry.url(name);
                if (url != null) {
                    urls.add(url);
                }
            }
        } finally {
            Access.endQuiet();
        }
        return urls;
    }

    /** One directory or jar of the classpath. */
    private static final class Entry {
        final File file;
        final ProtectionDomain domain;
        /** Opened on first use; null for a directory or an unreadable jar. */
        private JarFile jar;
        private boolean opened;

        Entry(File file) {
            this.file = file;
            ProtectionDomain domain = null;
            try {
                domain = new ProtectionDomain(new CodeSource(file.toURI().toURL(), (Certificate[]) null), null);
            } catch (MalformedURLException e) {
                // Leave the classes of this entry without a code source.
            }
            this.domain = domain;
        }

        synchronized byte[] read(String path) {
            try {
                if (file.isDirectory()) {
                    return Files.readAllBytes(new File(file, path).toPath());
                }
                JarFile jar = jar();
                if (jar == null) {
                    return null;
                }
                JarEntry entry = jar.getJarEntry(path);
                if (entry == null) {
                    return null;
                }
                try (InputStream in = jar.getInputStream(entry)) {
                    return in.readAllBytes();
                }
            } catch (NoSuchFileException e) {
                return null;
            } catch (IOException e) {
                return null;
            }
        }

        synchronized URL url(String name) {
            try {
                if (file.isDirectory()) {
                    File resource = new File(file, name);
                    return resource.exists() ? resource.toURI().toURL() : null;
                }
                JarFile jar = jar();
                if (jar == null || jar.getJarEntry(name) == null) {
                    return null;
                }
                return new URL("jar:" + file.toURI() + "!/" + name);
            } catch (MalformedURLException e) {
                return null;
            }
        }

        private JarFile jar() {
            if (!opened) {
                opened = true;
                try {
                    // Multi-release aware: the entries for the running JDK win.
                    jar = new JarFile(file, false, ZipFile.OPEN_READ, Runtime.version());
                } catch (IOException e) {
                    jar = null;
                }
            }
            return jar;
        }
    }
}
