package io.seckill.dashboard;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/admin/dashboard}: the live dashboard's data (admin credential); the page
 * itself is {@code /dashboard.html}, which holds no data and asks for the token.
 */
@RestController
class DashboardController {

    private final SaleBoard board;

    DashboardController(SaleBoard board) {
        this.board = board;
    }

    @GetMapping("/api/v1/admin/dashboard")
    SaleBoard.Board state() {
        return board.state();
    }
}
