package io.seckill.activity;

import io.seckill.state.SaleStatus;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Admin API (separate credential): create, warm, open, close, and the inventory view. */
@RestController
@RequestMapping("/api/v1/admin/activities")
class AdminController {

    private final ActivityService service;

    AdminController(ActivityService service) {
        this.service = service;
    }

    /** A sale after a step of its life: created (DRAFT), warmed, opened, closed. */
    record SaleStep(long activityId, String status) {}

    @PostMapping
    ResponseEntity<SaleStep> create(@RequestBody(required = false) ActivityService.NewActivity body) {
        Activity a = service.create(body);
        return ResponseEntity.status(HttpStatus.CREATED)
                .body(new SaleStep(a.activityId(), a.status().name()));
    }

    @PostMapping("/{activityId}/warm")
    SaleStep warm(@PathVariable long activityId) {
        service.warm(activityId);
        return new SaleStep(activityId, SaleStatus.WARMED.name());
    }

    @PostMapping("/{activityId}/open")
    SaleStep open(@PathVariable long activityId) {
        service.open(activityId);
        return new SaleStep(activityId, SaleStatus.OPEN.name());
    }

    @PostMapping("/{activityId}/close")
    SaleStep close(@PathVariable long activityId) {
        service.close(activityId);
        return new SaleStep(activityId, SaleStatus.CLOSED.name());
    }

    @GetMapping("/{activityId}/inventory")
    List<ActivityService.InventoryRow> inventory(@PathVariable long activityId) {
        return service.inventoryView(activityId).stream()
                .map(ActivityService.InventoryRow::of)
                .toList();
    }
}
