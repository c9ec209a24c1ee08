package io.softrdma.rsocket;

import io.rsocket.test.TransportTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * RSocket's transport test kit as both of this module's kit runs take it: the kit's two heaviest tests only on
 * request ({@link HeavyKitTests} says why).
 */
interface RdmaKit extends TransportTest {
    @Override
    @Test
    @DisplayName("makes 1 requestChannel request with 200,000 payloads")
    @EnabledIfSystemProperty(named = HeavyKitTests.PROPERTY, matches = "true",
            disabledReason = HeavyKitTests.CHANNEL_200_000)
    default void requestChannel200_000() {
        TransportTest.super.requestChannel200_000();
    }

    @Override
    @Test
    @DisplayName("makes 1 requestChannel request with 256 payloads")
    @EnabledIfSystemProperty(named = HeavyKitTests.PROPERTY, matches = "true",
            disabledReason = HeavyKitTests.CHANNEL_256)
    default void requestChannel256() {
        TransportTest.super.requestChannel256();
    }
}
