x = 1
if x == 0:
    y = 0
elif x == 1:
    y = 1
elif x == 2:
    y = 2
elif x == 3:
    y = 3
elif x == 4:
    y = 4
elif x == 5:
    y = 5
elif x == 6:
    y = 6
elif x == 7:
    y = 7
elif x == 8:
    y = 8
elif x == 9:
    y = 9
elif x == 10:
    y = 10
elif x == 11:
    y = 11
elif x == 12:
    y = 12
elif x == 13:
    y = 13
elif x == 14:
    y = 14
elif x == 15:
    y = 15
elif x == 16:
    y = 16
elif x == 17:
    y = 17
elif x == 18:
    y = 18
elif x == 19:
    y = 19
elif x == 20:
    y = 20
elif x == 21:
    y = 21
elif x == 22:
    y = 22
elif x == 23:
    y = 23
elif x == 24:
    y = 24
elif x == 25:
    y = 25
elif x == 26:
    y = 26
elif x == 27:
    y = 27
elif x == 28:
    y = 28
elif x == 29:
    y = 29
elif x == 30:
    y = 30
elif x == 31:
    y = 31
elif x == 32:
    y = 32
elif x == 33:
    y = 33
elif x == 34:
    y = 34
elif x == 35:
    y = 35
elif x == 36:
    y = 36
elif x == 37:
    y = 37
elif x == 38:
    y = 38
elif x == 39:
    y = 39
elif x == 40:
    y = 40
elif x == 41:
    y = 41
elif x == 42:
    y = 42
elif x == 43:
    y = 43
elif x == 44:
    y = 44
elif x == 45:
    y = 45
elif x == 46:
    y = 46
elif x == 47:
    y = 47
elif x == 48:
    y = 48
elif x == 49:
    y = 49
elif x == 50:
    y = 50
elif x == 51:
    y = 51
elif x == 52:
    y = 52
elif x == 53:
    y = 53
elif x == 54:
    y = 54
elif x == 55:
    y = 55
elif x == 56:
    y = 56
elif x == 57:
    y = 57
elif x == 58:
    y = 58
elif x == 59:
    y = 59
elif x == 60:
    y = 60
elif x == 61:
    y = 61
elif x == 62:
    y = 62
elif x == 63:
    y = 63
elif x == 64:
    y = 64
elif x == 65:
    y = 65
elif x == 66:
    y = 66
elif x == 67:
    y = 67
elif x == 68:
    y = 68
elif x == 69:
    y = 69
elif x == 70:
    y = 70
elif x == 71:
    y = 71
elif x == 72:
    y = 72
elif x == 73:
    y = 73
elif x == 74:
    y = 74
elif x == 75:
    y = 75
elif x == 76:
    y = 76
elif x == 77:
    y = 77
elif x == 78:
    y = 78
elif x == 79:
    y = 79
elif x == 80:
    y = 80
elif x == 81:
    y = 81
elif x == 82:
    y = 82
elif x == 83:
    y = 83
elif x == 84:
    y = 84
elif x == 85:
    y = 85
elif x == 86:
    y = 86
elif x == 87:
    y = 87
elif x == 88:
    y = 88
elif x == 89:
    y = 89
elif x == 90:
    y = 90
elif x == 91:
    y = 91
elif x == 92:
    y = 92
elif x == 93:
    y = 93
elif x == 94:
    y = 94
elif x == 95:
    y = 95
elif x == 96:
    y = 96
elif x == 97:
    y = 97
elif x == 98:
    y = 98
elif x == 99:
    y = 99
elif x == 100:
    y = 100
elif x == 101:
    y = 101
elif x == 102:
    y = 102
elif x == 103:
    y = 103
elif x == 104:
    y = 104
elif x == 105:
    y = 105
elif x == 106:
    y = 106
elif x == 107:
    y = 107
elif x == 108:
    y = 108
elif x == 109:
    y = 109
elif x == 110:
    y = 110
elif x == 111:
    y = 111
elif x == 112:
    y = 112
elif x == 113:
    y = 113
elif x == 114:
    y = 114
elif x == 115:
    y = 115
elif x == 116:
    y = 116
elif x == 117:
    y = 117
elif x == 118:
    y = 118
elif x == 119:
    y = 119
elif x == 120:
    y = 120
elif x == 121:
    y = 121
elif x == 122:
    y = 122
elif x == 123:
    y = 123
elif x == 124:
    y = 124
elif x == 125:
    y = 125
elif x == 126:
    y = 126
elif x == 127:
    y = 127
elif x == 128:
    y = 128
elif x == 129:
    y = 129
elif x == 130:
    y = 130
elif x == 131:
    y = 131
elif x == 132:
    y = 132
elif x == 133:
    y = 133
elif x == 134:
    y = 134
elif x == 135:
    y = 135
elif x == 136:
    y = 136
elif x == 137:
    y = 137
elif x == 138:
    y = 138
elif x == 139:
    y = 139
elif x == 140:
    y = 140
elif x == 141:
    y = 141
elif x == 142:
    y = 142
elif x == 143:
    y = 143
elif x == 144:
    y = 144
elif x == 145:
    y = 145
elif x == 146:
    y = 146
elif x == 147:
    y = 147
elif x == 148:
    y = 148
elif x == 149:
    y = 149
elif x == 150:
    y = 150
elif x == 151:
    y = 151
elif x == 152:
    y = 152
elif x == 153:
    y = 153
elif x == 154:
    y = 154
elif x == 155:
    y = 155
elif x == 156:
    y = 156
elif x == 157:
    y = 157
elif x == 158:
    y = 158
elif x == 159:
    y = 159
elif x == 160:
    y = 160
elif x == 161:
    y = 161
elif x == 162:
    y = 162
elif x == 163:
    y = 163
elif x == 164:
    y = 164
elif x == 165:
    y = 165
elif x == 166:
    y = 166
elif x == 167:
    y = 167
elif x == 168:
    y = 168
elif x == 169:
    y = 169
elif x == 170:
    y = 170
elif x == 171:
    y = 171
elif x == 172:
    y = 172
elif x == 173:
    y = 173
elif x == 174:
    y = 174
elif x == 175:
    y = 175
elif x == 176:
    y = 176
elif x == 177:
    y = 177
elif x == 178:
    y = 178
elif x == 179:
    y = 179
elif x == 180:
    y = 180
elif x == 181:
    y = 181
elif x == 182:
    y = 182
elif x == 183:
    y = 183
elif x == 184:
    y = 184
elif x == 185:
    y = 185
elif x == 186:
    y = 186
elif x == 187:
    y = 187
elif x == 188:
    y = 188
elif x == 189:
    y = 189
elif x == 190:
    y = 190
elif x == 191:
    y = 191
elif x == 192:
    y = 192
elif x == 193:
    y = 193
elif x == 194:
    y = 194
elif x == 195:
    y = 195
elif x == 196:
    y = 196
elif x == 197:
    y = 197
elif x == 198:
    y = 198
elif x == 199:
    y = 199
elif x == 200:
    y = 200
elif x == 201:
    y = 201
elif x == 202:
    y = 202
elif x == 203:
    y = 203
elif x == 204:
    y = 204
elif x == 205:
    y = 205
elif x == 206:
    y = 206
elif x == 207:
    y = 207
elif x == 208:
    y = 208
elif x == 209:
    y = 209
elif x == 210:
    y = 210
elif x == 211:
    y = 211
elif x == 212:
    y = 212
elif x == 213:
    y = 213
elif x == 214:
    y = 214
elif x == 215:
    y = 215
elif x == 216:
    y = 216
elif x == 217:
    y = 217
elif x == 218:
    y = 218
elif x == 219:
    y = 219
elif x == 220:
    y = 220
elif x == 221:
    y = 221
elif x == 222:
    y = 222
elif x == 223:
    y = 223
elif x == 224:
    y = 224
elif x == 225:
    y = 225
elif x == 226:
    y = 226
elif x == 227:
    y = 227
elif x == 228:
    y = 228
elif x == 229:
    y = 229
elif x == 230:
    y = 230
elif x == 231:
    y = 231
elif x == 232:
    y = 232
elif x == 233:
    y = 233
elif x == 234:
    y = 234
elif x == 235:
    y = 235
elif x == 236:
    y = 236
elif x == 237:
    y = 237
elif x == 238:
    y = 238
elif x == 239:
    y = 239
elif x == 240:
    y = 240
elif x == 241:
    y = 241
elif x == 242:
    y = 242
elif x == 243:
    y = 243
elif x == 244:
    y = 244
elif x == 245:
    y = 245
elif x == 246:
    y = 246
elif x == 247:
    y = 247
elif x == 248:
    y = 248
elif x == 249:
    y = 249
elif x == 250:
    y = 250
elif x == 251:
    y = 251
elif x == 252:
    y = 252
elif x == 253:
    y = 253
elif x == 254:
    y = 254
elif x == 255:
    y = 255
elif x == 256:
    y = 256
elif x == 257:
    y = 257
elif x == 258:
    y = 258
elif x == 259:
    y = 259
elif x == 260:
    y = 260
elif x == 261:
    y = 261
elif x == 262:
    y = 262
elif x == 263:
    y = 263
elif x == 264:
    y = 264
elif x == 265:
    y = 265
elif x == 266:
    y = 266
elif x == 267:
    y = 267
elif x == 268:
    y = 268
elif x == 269:
    y = 269
elif x == 270:
    y = 270
elif x == 271:
    y = 271
elif x == 272:
    y = 272
elif x == 273:
    y = 273
elif x == 274:
    y = 274
elif x == 275:
    y = 275
elif x == 276:
    y = 276
elif x == 277:
    y = 277
elif x == 278:
    y = 278
elif x == 279:
    y = 279
elif x == 280:
    y = 280
elif x == 281:
    y = 281
elif x == 282:
    y = 282
elif x == 283:
    y = 283
elif x == 284:
    y = 284
elif x == 285:
    y = 285
elif x == 286:
    y = 286
elif x == 287:
    y = 287
elif x == 288:
    y = 288
elif x == 289:
    y = 289
elif x == 290:
    y = 290
elif x == 291:
    y = 291
elif x == 292:
    y = 292
elif x == 293:
    y = 293
elif x == 294:
    y = 294
elif x == 295:
    y = 295
elif x == 296:
    y = 296
elif x == 297:
    y = 297
elif x == 298:
    y = 298
elif x == 299:
    y = 299
elif x == 300:
    y = 300
elif x == 301:
    y = 301
elif x == 302:
    y = 302
elif x == 303:
    y = 303
elif x == 304:
    y = 304
elif x == 305:
    y = 305
elif x == 306:
    y = 306
elif x == 307:
    y = 307
elif x == 308:
    y = 308
elif x == 309:
    y = 309
elif x == 310:
    y = 310
elif x == 311:
    y = 311
elif x == 312:
    y = 312
elif x == 313:
    y = 313
elif x == 314:
    y = 314
elif x == 315:
    y = 315
elif x == 316:
    y = 316
elif x == 317:
    y = 317
elif x == 318:
    y = 318
elif x == 319:
    y = 319
elif x == 320:
    y = 320
elif x == 321:
    y = 321
elif x == 322:
    y = 322
elif x == 323:
    y = 323
elif x == 324:
    y = 324
elif x == 325:
    y = 325
elif x == 326:
    y = 326
elif x == 327:
    y = 327
elif x == 328:
    y = 328
elif x == 329:
    y = 329
elif x == 330:
    y = 330
elif x == 331:
    y = 331
elif x == 332:
    y = 332
elif x == 333:
    y = 333
elif x == 334:
    y = 334
elif x == 335:
    y = 335
elif x == 336:
    y = 336
elif x == 337:
    y = 337
elif x == 338:
    y = 338
elif x == 339:
    y = 339
elif x == 340:
    y = 340
elif x == 341:
    y = 341
elif x == 342:
    y = 342
elif x == 343:
    y = 343
elif x == 344:
    y = 344
elif x == 345:
    y = 345
elif x == 346:
    y = 346
elif x == 347:
    y = 347
elif x == 348:
    y = 348
elif x == 349:
    y = 349
elif x == 350:
    y = 350
elif x == 351:
    y = 351
elif x == 352:
    y = 352
elif x == 353:
    y = 353
elif x == 354:
    y = 354
elif x == 355:
    y = 355
elif x == 356:
    y = 356
elif x == 357:
    y = 357
elif x == 358:
    y = 358
elif x == 359:
    y = 359
elif x == 360:
    y = 360
elif x == 361:
    y = 361
elif x == 362:
    y = 362
elif x == 363:
    y = 363
elif x == 364:
    y = 364
elif x == 365:
    y = 365
elif x == 366:
    y = 366
elif x == 367:
    y = 367
elif x == 368:
    y = 368
elif x == 369:
    y = 369
elif x == 370:
    y = 370
elif x == 371:
    y = 371
elif x == 372:
    y = 372
elif x == 373:
    y = 373
elif x == 374:
    y = 374
elif x == 375:
    y = 375
elif x == 376:
    y = 376
elif x == 377:
    y = 377
elif x == 378:
    y = 378
elif x == 379:
    y = 379
elif x == 380:
    y = 380
elif x == 381:
    y = 381
elif x == 382:
    y = 382
elif x == 383:
    y = 383
elif x == 384:
    y = 384
elif x == 385:
    y = 385
elif x == 386:
    y = 386
elif x == 387:
    y = 387
elif x == 388:
    y = 388
elif x == 389:
    y = 389
elif x == 390:
    y = 390
elif x == 391:
    y = 391
elif x == 392:
    y = 392
elif x == 393:
    y = 393
elif x == 394:
    y = 394
elif x == 395:
    y = 395
elif x == 396:
    y = 396
elif x == 397:
    y = 397
elif x == 398:
    y = 398
elif x == 399:
    y = 399
elif x == 400:
    y = 400
elif x == 401:
    y = 401
elif x == 402:
    y = 402
elif x == 403:
    y = 403
elif x == 404:
    y = 404
elif x == 405:
    y = 405
elif x == 406:
    y = 406
elif x == 407:
    y = 407
elif x == 408:
    y = 408
elif x == 409:
    y = 409
elif x == 410:
    y = 410
elif x == 411:
    y = 411
elif x == 412:
    y = 412
elif x == 413:
    y = 413
elif x == 414:
    y = 414
elif x == 415:
    y = 415
elif x == 416:
    y = 416
elif x == 417:
    y = 417
elif x == 418:
    y = 418
elif x == 419:
    y = 419
elif x == 420:
    y = 420
elif x == 421:
    y = 421
elif x == 422:
    y = 422
elif x == 423:
    y = 423
elif x == 424:
    y = 424
elif x == 425:
    y = 425
elif x == 426:
    y = 426
elif x == 427:
    y = 427
elif x == 428:
    y = 428
elif x == 429:
    y = 429
elif x == 430:
    y = 430
elif x == 431:
    y = 431
elif x == 432:
    y = 432
elif x == 433:
    y = 433
elif x == 434:
    y = 434
elif x == 435:
    y = 435
elif x == 436:
    y = 436
elif x == 437:
    y = 437
elif x == 438:
    y = 438
elif x == 439:
    y = 439
elif x == 440:
    y = 440
elif x == 441:
    y = 441
elif x == 442:
    y = 442
elif x == 443:
    y = 443
elif x == 444:
    y = 444
elif x == 445:
    y = 445
elif x == 446:
    y = 446
elif x == 447:
    y = 447
elif x == 448:
    y = 448
elif x == 449:
    y = 449
elif x == 450:
    y = 450
elif x == 451:
    y = 451
elif x == 452:
    y = 452
elif x == 453:
    y = 453
elif x == 454:
    y = 454
elif x == 455:
    y = 455
elif x == 456:
    y = 456
elif x == 457:
    y = 457
elif x == 458:
    y = 458
elif x == 459:
    y = 459
elif x == 460:
    y = 460
elif x == 461:
    y = 461
elif x == 462:
    y = 462
elif x == 463:
    y = 463
elif x == 464:
    y = 464
elif x == 465:
    y = 465
elif x == 466:
    y = 466
elif x == 467:
    y = 467
elif x == 468:
    y = 468
elif x == 469:
    y = 469
elif x == 470:
    y = 470
elif x == 471:
    y = 471
elif x == 472:
    y = 472
elif x == 473:
    y = 473
elif x == 474:
    y = 474
elif x == 475:
    y = 475
elif x == 476:
    y = 476
elif x == 477:
    y = 477
elif x == 478:
    y = 478
elif x == 479:
    y = 479
elif x == 480:
    y = 480
elif x == 481:
    y = 481
elif x == 482:
    y = 482
elif x == 483:
    y = 483
elif x == 484:
    y = 484
elif x == 485:
    y = 485
elif x == 486:
    y = 486
elif x == 487:
    y = 487
elif x == 488:
    y = 488
elif x == 489:
    y = 489
elif x == 490:
    y = 490
elif x == 491:
    y = 491
elif x == 492:
    y = 492
elif x == 493:
    y = 493
elif x == 494:
    y = 494
elif x == 495:
    y = 495
elif x == 496:
    y = 496
elif x == 497:
    y = 497
elif x == 498:
    y = 498
elif x == 499:
    y = 499
elif x == 500:
    y = 500
elif x == 501:
    y = 501
elif x == 502:
    y = 502
elif x == 503:
    y = 503
elif x == 504:
    y = 504
elif x == 505:
    y = 505
elif x == 506:
    y = 506
elif x == 507:
    y = 507
elif x == 508:
    y = 508
elif x == 509:
    y = 509
elif x == 510:
    y = 510
elif x == 511:
    y = 511
elif x == 512:
    y = 512
elif x == 513:
    y = 513
elif x == 514:
    y = 514
elif x == 515:
    y = 515
elif x == 516:
    y = 516
elif x == 517:
    y = 517
elif x == 518:
    y = 518
elif x == 519:
    y = 519
elif x == 520:
    y = 520
elif x == 521:
    y = 521
elif x == 522:
    y = 522
elif x == 523:
    y = 523
elif x == 524:
    y = 524
elif x == 525:
    y = 525
elif x == 526:
    y = 526
elif x == 527:
    y = 527
elif x == 528:
    y = 528
elif x == 529:
    y = 529
elif x == 530:
    y = 530
elif x == 531:
    y = 531
elif x == 532:
    y = 532
elif x == 533:
    y = 533
elif x == 534:
    y = 534
elif x == 535:
    y = 535
elif x == 536:
    y = 536
elif x == 537:
    y = 537
elif x == 538:
    y = 538
elif x == 539:
    y = 539
elif x == 540:
    y = 540
elif x == 541:
    y = 541
elif x == 542:
    y = 542
elif x == 543:
    y = 543
elif x == 544:
    y = 544
elif x == 545:
    y = 545
elif x == 546:
    y = 546
elif x == 547:
    y = 547
elif x == 548:
    y = 548
elif x == 549:
    y = 549
elif x == 550:
    y = 550
elif x == 551:
    y = 551
elif x == 552:
    y = 552
elif x == 553:
    y = 553
elif x == 554:
    y = 554
elif x == 555:
    y = 555
elif x == 556:
    y = 556
elif x == 557:
    y = 557
elif x == 558:
    y = 558
elif x == 559:
    y = 559
elif x == 560:
    y = 560
elif x == 561:
    y = 561
elif x == 562:
    y = 562
elif x == 563:
    y = 563
elif x == 564:
    y = 564
elif x == 565:
    y = 565
elif x == 566:
    y = 566
elif x == 567:
    y = 567
elif x == 568:
    y = 568
elif x == 569:
    y = 569
elif x == 570:
    y = 570
elif x == 571:
    y = 571
elif x == 572:
    y = 572
elif x == 573:
    y = 573
elif x == 574:
    y = 574
elif x == 575:
    y = 575
elif x == 576:
    y = 576
elif x == 577:
    y = 577
elif x == 578:
    y = 578
elif x == 579:
    y = 579
elif x == 580:
    y = 580
elif x == 581:
    y = 581
elif x == 582:
    y = 582
elif x == 583:
    y = 583
elif x == 584:
    y = 584
elif x == 585:
    y = 585
elif x == 586:
    y = 586
elif x == 587:
    y = 587
elif x == 588:
    y = 588
elif x == 589:
    y = 589
elif x == 590:
    y = 590
elif x == 591:
    y = 591
elif x == 592:
    y = 592
elif x == 593:
    y = 593
elif x == 594:
    y = 594
elif x == 595:
    y = 595
elif x == 596:
    y = 596
elif x == 597:
    y = 597
elif x == 598:
    y = 598
elif x == 599:
    y = 599
